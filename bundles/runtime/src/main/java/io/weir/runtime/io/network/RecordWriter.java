package io.weir.runtime.io.network;

import io.weir.api.Row;
import io.weir.api.RowSerializer;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;
import io.weir.core.checkpoint.CheckpointBarrier;

/**
 * Serializes the rows of one output edge of a task into network buffers, once per row, and hands
 * full buffers to the subpartitions chosen by the {@link ChannelSelector}.
 *
 * <p>Task thread only. Never blocks: the task checks {@link #isAvailable()} before taking the next
 * input, and a single row that finds the pool empty gets an overdraft buffer.
 */
public final class RecordWriter {
    private final PipelinedSubpartition[] subpartitions;
    private final NetworkBuffer[] current;
    private final BufferPool pool;
    private final ChannelSelector selector;
    private final RowSerializer serializer;
    /** Largest serialized row, bytes: the scratch array grows up to this (a row that does not fit is an error). */
    private static final int MAX_SCRATCH_BYTES = Integer.MAX_VALUE - 16;
    /** A row serialized for a broadcast or for a new buffer, bytes [0, scratchLength); task thread only, reused. */
    private byte[] scratch = new byte[256];
    /** Task thread only: valid bytes of {@link #scratch}. */
    private int scratchLength;
    /** Rows emitted (a broadcast row counts once); task thread only, published to {@link #recordsWritten}. */
    private long written;
    /**
     * {@link #written} as of the last buffer handed to a channel or flush, Flink's {@code numRecordsOut}: the task
     * thread publishes it with a release store once per buffer, not per row (no store to a shared cache line on the
     * record path); read by any thread.
     */
    private final AtomicLong recordsWritten = new AtomicLong();
    /** Whether a row was emitted yet; task thread only (keeps the volatile write below to once per writer). */
    private boolean emitted;
    /** Wall-clock time of the first row emitted, ms since the epoch, -1 before; written once by the task thread. */
    private volatile long firstRecordMillis = -1;
    /** The producer's side output this writer carries, or null for its main output. */
    private final String sideOutput;

    /**
     * @param subpartitions one per consumer channel of this edge
     * @param pool the buffer pool of this task's output
     * @param selector how rows choose a channel
     * @param serializer the edge's row serializer
     */
    public RecordWriter(List<PipelinedSubpartition> subpartitions, BufferPool pool, ChannelSelector selector, RowSerializer serializer) {
        this(subpartitions, pool, selector, serializer, null);
    }

    /**
     * @param subpartitions one per consumer channel of this edge
     * @param pool the buffer pool of this task's output
     * @param selector how rows choose a channel
     * @param serializer the edge's row serializer
     * @param sideOutput the side output name this edge carries, null for the main output
     */
    public RecordWriter(List<PipelinedSubpartition> subpartitions, BufferPool pool, ChannelSelector selector, RowSerializer serializer,
            String sideOutput) {
        this.sideOutput = sideOutput;
        this.subpartitions = subpartitions.toArray(new PipelinedSubpartition[0]);
        this.current = new NetworkBuffer[this.subpartitions.length];
        this.pool = pool;
        this.selector = selector;
        this.serializer = serializer;
    }

    /**
     * Serializes {@code row} and appends it to its channel's buffer(s). A row for one channel is serialized straight
     * into that channel's current buffer when it fits there; otherwise (no current buffer, the buffer is full, or a
     * broadcast row) it is serialized once into a scratch array and copied.
     */
    public void emit(Row row) {
        int channel = selector.select(row);
        if (channel == ChannelSelector.BROADCAST) {
            serializeToScratch(row);
            for (int c = 0; c < subpartitions.length; c++) {
                append(c);
            }
        } else if (!appendInPlace(channel, row)) {
            serializeToScratch(row);
            append(channel);
        }
        written++;
        if (!emitted) {
            emitted = true;
            firstRecordMillis = System.currentTimeMillis();
        }
    }

    /**
     * Serializes {@code row} after the last record of {@code channel}'s current buffer, behind a 4-byte length.
     *
     * @return false, with the buffer unchanged, if there is no current buffer or the row does not fit in it (its
     *         capacity, or the size the consumer asked for)
     */
    private boolean appendInPlace(int channel, Row row) {
        NetworkBuffer b = current[channel];
        if (b == null) {
            return false;
        }
        int pos = b.size();
        long desired = subpartitions[channel].desiredBufferSize();
        int limit = (int) Math.min(b.capacity(), desired);
        if (pos + 4 > limit) {
            return false;
        }
        byte[] seg = b.segment();
        int end = serializer.serializeInto(row, seg, pos + 4, limit);
        if (end < 0) {
            return false;
        }
        putLength(seg, pos, end - pos - 4);
        b.setSize(end);
        return true;
    }

    /** Serializes {@code row} into {@link #scratch} (from 0, growing it as needed) and sets {@link #scratchLength}. */
    private void serializeToScratch(Row row) {
        int end;
        while ((end = serializer.serializeInto(row, scratch, 0, scratch.length)) < 0) {
            if (scratch.length >= MAX_SCRATCH_BYTES) {
                throw new IllegalArgumentException("row of schema " + serializer.schema() + " serializes to more than "
                        + MAX_SCRATCH_BYTES + " bytes; records are limited to that size");
            }
            scratch = new byte[(int) Math.min(MAX_SCRATCH_BYTES, 2L * scratch.length)];
        }
        scratchLength = end;
    }

    private static void putLength(byte[] seg, int pos, int len) {
        seg[pos] = (byte) (len >>> 24);
        seg[pos + 1] = (byte) (len >>> 16);
        seg[pos + 2] = (byte) (len >>> 8);
        seg[pos + 3] = (byte) len;
    }

    /** @return when this writer emitted its first row, ms since the epoch, or -1 if it has not; any thread */
    public long firstRecordMillis() {
        return firstRecordMillis;
    }

    /** @return the side output this writer carries, or null for the main output */
    public String sideOutput() {
        return sideOutput;
    }

    /**
     * @return rows emitted through this writer since it was created, >= 0; any thread. Counts the rows up to the last
     *         buffer handed to a channel (a full buffer, a flush, an event or a barrier), so it lags by at most the
     *         rows of the partly filled buffers, which the buffer timeout flushes.
     */
    public long recordsWritten() {
        return recordsWritten.get();
    }

    /** Appends the row in {@link #scratch} to {@code channel}, in a new buffer if it does not fit the current one. */
    private void append(int channel) {
        int len = scratchLength;
        int need = len + 4;
        NetworkBuffer b = current[channel];
        if (b != null && (b.capacity() - b.size() < need
                || b.size() + need > subpartitions[channel].desiredBufferSize())) {
            finish(channel);
            b = null;
        }
        if (b == null) {
            b = need > pool.bufferSize() ? null : pool.request();
            if (b == null) {
                b = pool.requestOverdraft(need);
            } else {
                takeOwnership(b, subpartitions[channel].desiredBufferSize());
            }
            current[channel] = b;
        }
        byte[] seg = b.segment();
        int pos = b.size();
        putLength(seg, pos, len);
        System.arraycopy(scratch, 0, seg, pos + 4, len);
        b.setSize(pos + need);
    }

    /**
     * Zeroes the part of a recycled pooled buffer that rows will fill ({@code min(capacity, desired)} bytes) before
     * any row is written into it. The buffer's cache lines were last read by the consumer's task thread, usually on
     * the other core, so the first store to each line must first take it from that core (a read for ownership).
     * Rows serialized in place interleave those stores with their loads and byte swaps, so few ownership requests
     * are in flight at once and the stores queue behind them; {@link java.util.Arrays#fill} issues them back to back
     * (vector stores, about one per line), so they overlap, and the rows then go to lines this core owns. Measured
     * in issue 13 (benchmarks/README.md, "Taking a buffer's lines before writing it"): on a machine where a cache
     * line takes ~250 ns from one core to the other, {@code throughput-100k} rose by 11-15 % (two A/B sets) and
     * {@code throughput-16} by 15 % in one set and not in the other; where lines move faster, it costs the fill
     * (32 KB of owned stores per buffer, a few ns per row).
     */
    private static void takeOwnership(NetworkBuffer b, int desired) {
        java.util.Arrays.fill(b.segment(), 0, Math.min(b.capacity(), desired), (byte) 0);
    }

    private void finish(int channel) {
        recordsWritten.lazySet(written);
        NetworkBuffer b = current[channel];
        current[channel] = null;
        if (b != null) {
            if (b.size() == 0) {
                b.recycle();
            } else {
                subpartitions[channel].addBuffer(b);
            }
        }
    }

    /** Sends every partly filled buffer (buffer timeout, before events, at the end). */
    public void flushAll() {
        for (int c = 0; c < subpartitions.length; c++) {
            finish(c);
        }
    }

    /** Flushes, then sends {@code event} on every channel behind all data written so far. */
    public void broadcastEvent(Object event) {
        flushAll();
        for (PipelinedSubpartition sp : subpartitions) {
            sp.addEvent(event);
        }
    }

    /**
     * Flushes, then sends a checkpoint barrier on every channel (see
     * {@link PipelinedSubpartition#addBarrier} for how each kind travels).
     *
     * @return per channel, the in-flight data the barrier overtook
     */
    public List<CompletableFuture<List<byte[]>>> broadcastBarrier(CheckpointBarrier barrier) {
        flushAll();
        List<CompletableFuture<List<byte[]>>> overtaken = new ArrayList<>(subpartitions.length);
        for (PipelinedSubpartition sp : subpartitions) {
            overtaken.add(sp.addBarrier(barrier));
        }
        return overtaken;
    }

    /** Lets the pending aligned-with-timeout barrier of {@code checkpointId} overtake on every channel. Thread-safe. */
    public void convertToPriority(long checkpointId) {
        for (PipelinedSubpartition sp : subpartitions) {
            sp.convertToPriority(checkpointId);
        }
    }

    /** @return whether a new buffer is available (false = backpressured) */
    public boolean isAvailable() {
        return pool.isAvailable();
    }

    /** Recycles partly filled buffers (task cancellation). */
    public void release() {
        for (int c = 0; c < current.length; c++) {
            if (current[c] != null) {
                current[c].recycle();
                current[c] = null;
            }
        }
    }
}
