package io.weir.runtime.io.network;

import io.weir.api.Row;
import io.weir.api.RowSerializer;

import java.io.IOException;
import java.io.UncheckedIOException;
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
    private final ByteArrayDataOutput scratch = new ByteArrayDataOutput();
    /**
     * Rows emitted (a broadcast row counts once), Flink's {@code numRecordsOut}. Written by the task thread only,
     * with a release store (no lock, no fence on the record path); read by any thread.
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

    /** Serializes {@code row} and appends it to its channel's buffer(s). */
    public void emit(Row row) {
        scratch.clear();
        try {
            serializer.serialize(row, scratch);
        } catch (IOException e) {
            throw new UncheckedIOException("serializing " + row, e);
        }
        int channel = selector.select(row);
        if (channel == ChannelSelector.BROADCAST) {
            for (int c = 0; c < subpartitions.length; c++) {
                append(c);
            }
        } else {
            append(channel);
        }
        recordsWritten.lazySet(recordsWritten.get() + 1);
        if (!emitted) {
            emitted = true;
            firstRecordMillis = System.currentTimeMillis();
        }
    }

    /** @return when this writer emitted its first row, ms since the epoch, or -1 if it has not; any thread */
    public long firstRecordMillis() {
        return firstRecordMillis;
    }

    /** @return the side output this writer carries, or null for the main output */
    public String sideOutput() {
        return sideOutput;
    }

    /** @return rows emitted through this writer since it was created, >= 0; any thread (may lag by a few rows) */
    public long recordsWritten() {
        return recordsWritten.get();
    }

    private void append(int channel) {
        int len = scratch.length();
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
            }
            current[channel] = b;
        }
        byte[] seg = b.segment();
        int pos = b.size();
        seg[pos] = (byte) (len >>> 24);
        seg[pos + 1] = (byte) (len >>> 16);
        seg[pos + 2] = (byte) (len >>> 8);
        seg[pos + 3] = (byte) len;
        System.arraycopy(scratch.array(), 0, seg, pos + 4, len);
        b.setSize(pos + need);
    }

    private void finish(int channel) {
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
