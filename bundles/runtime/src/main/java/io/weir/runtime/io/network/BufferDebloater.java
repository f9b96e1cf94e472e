package io.weir.runtime.io.network;

/**
 * Buffer debloating (Flink's FLIP-183 idea): a consumer measures how fast it reads its input and
 * asks its producers for buffers small enough that everything in flight on its channels amounts to
 * about {@code target} of that throughput. Backpressured links then hold little data, so an aligned
 * barrier waits briefly behind it and an unaligned checkpoint persists little; fast links keep full
 * buffers (the size is capped at the buffer capacity), so throughput does not suffer.
 *
 * <p>Only real measurements count. The estimate starts with the first sample after the task has
 * read input (time spent deploying or waiting for the first buffer is not a zero throughput), and a
 * sample taken less than {@code minSampleNanos} after the one before it is not folded in: such a
 * sample is a periodic update that queued up behind a stall of the task thread (a checkpoint, a GC
 * pause, a thread not scheduled) and measures no interval. Before this rule, every queued update
 * counted as a full interval at zero throughput and halved the estimate, so a 700 ms stall shrank
 * the buffers 128 times; tiny buffers then overflowed into many overdraft buffers, which pushed the
 * computed size down further. A real interval in which the task thread read nothing (not
 * scheduled, compiling, collecting garbage) still measures zero, so the size shrinks by at most
 * half per update: from full buffers to the minimum takes 7 updates (700 ms) of low throughput.
 *
 * <p>Task thread only: updated from the consuming task's periodic mail.
 */
public final class BufferDebloater {
    /** Smallest buffer size asked for, bytes (as Flink's default). */
    public static final int MIN_BUFFER_SIZE = 256;
    private static final double SMOOTHING = 0.5;

    private final long targetMs;
    private final int maxBufferSize;
    private final long minSampleNanos;
    /** Smoothed throughput, bytes/s; -1 before the first measured interval. Task thread only. */
    private double throughput = -1;
    /** Bytes consumed at the start of the interval being measured. Task thread only. */
    private long lastBytes;
    /** Start of the interval being measured ({@link System#nanoTime()}); meaningful once {@link #started}. Task thread only. */
    private long lastNanos;
    /** Whether the task has read input, so intervals can be measured. Task thread only. */
    private boolean started;
    /** The size returned by the last update, bytes. Task thread only. */
    private int size;

    /**
     * @param targetMs in-flight data to aim for, in ms of throughput, ≥ 1
     * @param maxBufferSize the buffer capacity, bytes
     * @param minSampleNanos shortest interval that counts as a measurement, ns, ≥ 0 (half the update
     *        period: shorter ones are updates that queued up behind a stall)
     * @throws IllegalArgumentException naming the value out of range
     */
    public BufferDebloater(long targetMs, int maxBufferSize, long minSampleNanos) {
        if (targetMs < 1) {
            throw new IllegalArgumentException("buffer debloat target must be >= 1 ms, got " + targetMs);
        }
        if (minSampleNanos < 0) {
            throw new IllegalArgumentException("minimum debloat sample interval must be >= 0 ns, got " + minSampleNanos);
        }
        this.targetMs = targetMs;
        this.maxBufferSize = maxBufferSize;
        this.minSampleNanos = minSampleNanos;
        this.size = maxBufferSize;
    }

    /**
     * Folds one measurement into the smoothed throughput and returns the buffer size to ask for.
     * Before the task has read anything, and for a sample less than the minimum interval after the
     * previous counted one, the estimate is left as it is. The size grows at once but shrinks to at
     * most half of the previous update's size.
     *
     * @param consumedBytes total bytes the task has read so far (monotonic)
     * @param nowNanos the current {@link System#nanoTime()}
     * @param buffersInFlight buffers currently queued on the task's channels (received and backlog)
     * @return the desired buffer size in bytes, in [{@value #MIN_BUFFER_SIZE}, max buffer size]
     */
    public int update(long consumedBytes, long nowNanos, int buffersInFlight) {
        if (!started) {
            if (consumedBytes > 0) {
                // the clock starts with the first input; what came before it measured deployment, not throughput
                started = true;
                lastBytes = consumedBytes;
                lastNanos = nowNanos;
            }
        } else if (nowNanos - lastNanos >= Math.max(1, minSampleNanos)) {
            double rate = (consumedBytes - lastBytes) * 1e9 / (nowNanos - lastNanos);
            throughput = throughput < 0 ? rate : SMOOTHING * rate + (1 - SMOOTHING) * throughput;
            lastBytes = consumedBytes;
            lastNanos = nowNanos;
        }
        // shrink by at most half per update: one stalled interval is not a trend, while sustained
        // backpressure still reaches the minimum from full buffers in 7 updates
        size = Math.max(desiredSize(buffersInFlight), Math.max(MIN_BUFFER_SIZE, size / 2));
        return size;
    }

    /** @return the smoothed throughput estimate, bytes/s, or -1 before the first measured interval */
    public double throughput() {
        return throughput;
    }

    /** @return the size for the current throughput estimate, without the limit on shrinking (the maximum before the first estimate) */
    int desiredSize(int buffersInFlight) {
        if (throughput < 0) {
            return maxBufferSize;
        }
        double size = throughput * targetMs / 1000.0 / Math.max(1, buffersInFlight);
        return (int) Math.max(MIN_BUFFER_SIZE, Math.min(maxBufferSize, size));
    }
}
