package io.weir.runtime.io.network;

/**
 * Buffer debloating (Flink's FLIP-183 idea): a consumer measures how fast it reads its input and
 * asks its producers for buffers small enough that everything in flight on its channels amounts to
 * about {@code target} of that throughput. Backpressured links then hold little data, so an aligned
 * barrier waits briefly behind it and an unaligned checkpoint persists little; fast links keep full
 * buffers (the size is capped at the buffer capacity), so throughput does not suffer.
 *
 * <p>Task thread only: updated from the consuming task's periodic mail.
 */
public final class BufferDebloater {
    /** Smallest buffer size asked for, bytes (as Flink's default). */
    public static final int MIN_BUFFER_SIZE = 256;
    private static final double SMOOTHING = 0.5;

    private final long targetMs;
    private final int maxBufferSize;
    private double throughput = -1;
    private long lastBytes;
    private long lastNanos;

    /**
     * @param targetMs in-flight data to aim for, in ms of throughput, ≥ 1
     * @param maxBufferSize the buffer capacity, bytes
     */
    public BufferDebloater(long targetMs, int maxBufferSize) {
        if (targetMs < 1) {
            throw new IllegalArgumentException("buffer debloat target must be >= 1 ms, got " + targetMs);
        }
        this.targetMs = targetMs;
        this.maxBufferSize = maxBufferSize;
    }

    /**
     * Folds one measurement into the smoothed throughput and returns the buffer size to ask for.
     *
     * @param consumedBytes total bytes the task has read so far (monotonic)
     * @param nowNanos the current {@link System#nanoTime()}
     * @param buffersInFlight buffers currently queued on the task's channels (received and backlog)
     * @return the desired buffer size in bytes, in [{@value #MIN_BUFFER_SIZE}, max buffer size]
     */
    public int update(long consumedBytes, long nowNanos, int buffersInFlight) {
        if (lastNanos != 0 && nowNanos > lastNanos) {
            double rate = (consumedBytes - lastBytes) * 1e9 / (nowNanos - lastNanos);
            throughput = throughput < 0 ? rate : SMOOTHING * rate + (1 - SMOOTHING) * throughput;
        }
        lastBytes = consumedBytes;
        lastNanos = nowNanos;
        return desiredSize(buffersInFlight);
    }

    /** @return the size for the current throughput estimate (the maximum before the first estimate) */
    int desiredSize(int buffersInFlight) {
        if (throughput < 0) {
            return maxBufferSize;
        }
        double size = throughput * targetMs / 1000.0 / Math.max(1, buffersInFlight);
        return (int) Math.max(MIN_BUFFER_SIZE, Math.min(maxBufferSize, size));
    }
}
