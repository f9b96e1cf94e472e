package io.weir.runtime.io.network;

/**
 * A fixed-size memory segment holding serialized records, each a 4-byte length followed by the
 * row's bytes. A record never spans two buffers: a record that does not fit the remaining space
 * starts a new buffer, and one larger than a whole buffer gets a one-off buffer of its own.
 *
 * <p>Ownership moves with the buffer: the producer's task thread fills it, the subpartition queues
 * it, the consumer's task thread reads it and then calls {@link #recycle()}, which returns the
 * segment to the pool it came from and the credit to the channel it came through (Netty-style
 * explicit release). A buffer is owned by exactly one thread at a time.
 */
public final class NetworkBuffer {
    private final byte[] segment;
    private final BufferPool pool;
    private final boolean pooled;
    /** Owner thread only (see the class comment: one owner at a time, handed over through the subpartition queue). */
    private int size;
    /** Owner thread only, like size. */
    private Runnable onRecycle;

    NetworkBuffer(byte[] segment, BufferPool pool, boolean pooled) {
        this.segment = segment;
        this.pool = pool;
        this.pooled = pooled;
    }

    /** @return whether the segment goes back to the pool's free list (false for an overdraft) */
    boolean isPooled() {
        return pooled;
    }

    /** @return the backing array; bytes [0, size) are valid */
    public byte[] segment() {
        return segment;
    }

    /** @return the number of valid bytes */
    public int size() {
        return size;
    }

    /** Sets the number of valid bytes. */
    void setSize(int size) {
        this.size = size;
    }

    /** @return the capacity in bytes */
    public int capacity() {
        return segment.length;
    }

    /** Registers what to do on recycle besides returning the segment (e.g. give back a credit). */
    void onRecycle(Runnable action) {
        this.onRecycle = action;
    }

    /** Returns the buffer to its pool (if it has one) and runs the recycle action. Call exactly once. */
    public void recycle() {
        Runnable r = onRecycle;
        onRecycle = null;
        size = 0;
        pool.recycle(this);
        if (r != null) {
            r.run();
        }
    }
}
