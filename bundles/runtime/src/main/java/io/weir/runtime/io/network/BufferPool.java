package io.weir.runtime.io.network;

import java.util.ArrayDeque;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A bounded pool of network buffers of one result partition. When it is empty the producing task
 * is backpressured: it stops taking input until a consumer recycles a buffer (ARCHITECTURE.md
 * "Bounded buffer pools + credits give backpressure").
 *
 * <p>Thread-safe: the producer requests, consumers recycle.
 */
public final class BufferPool {
    private final int bufferSize;
    private final int capacity;
    /** Guarded by this. */
    private final ArrayDeque<NetworkBuffer> free = new ArrayDeque<>();
    /** Guarded by this: buffers created so far (created lazily up to capacity). */
    private int created;
    /**
     * Guarded by this: recycled overdraft buffers of {@link #bufferSize} bytes, at most {@link #MAX_SPARE_OVERDRAFTS},
     * handed out again by {@link #requestOverdraft} instead of a fresh array.
     */
    private final ArrayDeque<NetworkBuffer> spareOverdrafts = new ArrayDeque<>();
    /**
     * Overdraft buffers kept for reuse (Flink's default overdraft limit per gate is 5 too). A producer overruns by at
     * most one buffer per channel per poll (a poll starts only while a buffer is free), so a few cover the usual
     * case; the rest are garbage once recycled.
     */
    static final int MAX_SPARE_OVERDRAFTS = 5;
    private final CopyOnWriteArrayList<Runnable> availabilityListeners = new CopyOnWriteArrayList<>();
    /**
     * The number of available buffers at which a recycle tells the listeners, {@code max(1, capacity / 4)}: a
     * backpressured producer is woken once a few buffers are free, not for every buffer (each wake-up is a park and
     * an unpark of its thread). At most a quarter of the pool, so it is reached even while every channel holds a
     * partly filled buffer (a pool has at least 3 buffers per channel, see {@code TaskDeployer}).
     */
    private final int wakeLevel;
    /** Buffers that {@link #request()} can still hand out; read lock-free on the record path. */
    private final java.util.concurrent.atomic.AtomicInteger available;

    /**
     * @param bufferSize bytes per buffer
     * @param capacity maximum number of pooled buffers, ≥ 1
     */
    public BufferPool(int bufferSize, int capacity) {
        if (bufferSize < 64 || capacity < 1) {
            throw new IllegalArgumentException("buffer size " + bufferSize + " bytes and capacity " + capacity + " buffers must be >= 64 and >= 1");
        }
        this.bufferSize = bufferSize;
        this.capacity = capacity;
        this.available = new java.util.concurrent.atomic.AtomicInteger(capacity);
        this.wakeLevel = Math.max(1, capacity / 4);
    }

    /** @return bytes per buffer */
    public int bufferSize() {
        return bufferSize;
    }

    /** @return a free buffer, or null if all are in use */
    public synchronized NetworkBuffer request() {
        NetworkBuffer b = free.poll();
        if (b == null && created < capacity) {
            created++;
            b = new NetworkBuffer(new byte[bufferSize], this, true);
        }
        if (b != null) {
            available.decrementAndGet();
        }
        return b;
    }

    /**
     * An overdraft: a buffer beyond the pool's free buffers, for a record larger than a pooled
     * buffer or for the rest of a batch the producer started while buffers were still free. It
     * counts against the pool's availability until recycled, so the producer stays backpressured
     * until consumers have drained the overdraft too: in-flight data stays bounded.
     *
     * <p>An overdraft of at most {@link #bufferSize()} bytes reuses a recycled overdraft buffer when one is kept
     * (up to {@value #MAX_SPARE_OVERDRAFTS}): a source whose polls overrun the pool under backpressure would otherwise
     * allocate a fresh buffer-sized array for nearly every wake-up.
     *
     * @param size bytes needed
     * @return a buffer of at least {@code size} bytes that does not return to the pool's free buffers
     */
    public NetworkBuffer requestOverdraft(int size) {
        available.decrementAndGet();
        if (size <= bufferSize) {
            NetworkBuffer spare;
            synchronized (this) {
                spare = spareOverdrafts.poll();
            }
            if (spare != null) {
                return spare;
            }
        }
        return new NetworkBuffer(new byte[Math.max(size, bufferSize)], this, false);
    }

    /** @return whether {@link #request()} would return a buffer; lock-free (one volatile read) */
    public boolean isAvailable() {
        return available.get() > 0;
    }

    /** @return buffers currently handed out */
    public synchronized int inUse() {
        return created - free.size();
    }

    /**
     * Registers a listener run on the recycling thread when the buffers available rise to {@code max(1, capacity / 4)}
     * (a producer that found the pool empty is woken once that many are free again).
     */
    public void addAvailabilityListener(Runnable listener) {
        availabilityListeners.add(listener);
    }

    void recycle(NetworkBuffer buffer) {
        if (buffer.isPooled()) {
            synchronized (this) {
                free.push(buffer);
            }
        } else if (buffer.capacity() == bufferSize) {
            synchronized (this) {
                if (spareOverdrafts.size() < MAX_SPARE_OVERDRAFTS) {
                    spareOverdrafts.push(buffer);
                }
            }
        }
        // counts move by one, so a rise from empty passes through wakeLevel exactly once
        if (available.incrementAndGet() == wakeLevel) {
            for (Runnable r : availabilityListeners) {
                r.run();
            }
        }
    }
}
