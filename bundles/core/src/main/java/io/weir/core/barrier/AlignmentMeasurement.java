package io.weir.core.barrier;

import io.weir.core.checkpoint.CheckpointBarrier;

/**
 * What a barrier handler notes at the first barrier of a checkpoint so that, when it triggers the
 * checkpoint, it can report the {@link BarrierAlignment} (PROTOCOL.md §5): start delay, alignment
 * duration and bytes processed while aligning. Immutable.
 *
 * @param firstArrivalNanos {@link BarrierHandlerContext#nanoTime()} at the first barrier, ns
 * @param startDelayMs first barrier arrival − checkpoint creation time, ms (≥ 0; clock skew that
 *     would make it negative counts as 0)
 * @param bytesProcessedAtStart the handler's running total of processed bytes at the first barrier (≥ 0)
 */
public record AlignmentMeasurement(long firstArrivalNanos, long startDelayMs, long bytesProcessedAtStart) {
    /** @throws IllegalArgumentException if {@code startDelayMs} or {@code bytesProcessedAtStart} is negative */
    public AlignmentMeasurement {
        if (startDelayMs < 0) {
            throw new IllegalArgumentException("start delay must be >= 0 ms, got " + startDelayMs);
        }
        if (bytesProcessedAtStart < 0) {
            throw new IllegalArgumentException("processed bytes at start must be >= 0, got " + bytesProcessedAtStart);
        }
    }

    /**
     * Starts measuring at the first barrier of a checkpoint.
     *
     * @param barrier the first barrier; its {@code timestamp} is the checkpoint creation time (ms since the epoch)
     * @param firstArrivalNanos {@code nanoTime()} now, ns
     * @param firstArrivalMillis wall clock now, ms since the epoch
     * @param bytesProcessedAtStart the handler's running total of processed bytes now (≥ 0)
     * @return start delay = max(0, {@code firstArrivalMillis} − barrier timestamp)
     * @throws IllegalArgumentException if {@code bytesProcessedAtStart} is negative
     */
    public static AlignmentMeasurement start(CheckpointBarrier barrier, long firstArrivalNanos,
            long firstArrivalMillis, long bytesProcessedAtStart) {
        return new AlignmentMeasurement(firstArrivalNanos, Math.max(0, firstArrivalMillis - barrier.timestamp()),
                bytesProcessedAtStart);
    }

    /**
     * @param nowNanos {@code nanoTime()} now (when the checkpoint is triggered), ns
     * @param bytesProcessedNow the handler's running total of processed bytes now
     * @return the start delay, alignment duration = now − first arrival (ns, ≥ 0; 0 at the first
     *     barrier) and the bytes processed since the first barrier
     */
    public BarrierAlignment finish(long nowNanos, long bytesProcessedNow) {
        return new BarrierAlignment(startDelayMs, Math.max(0, nowNanos - firstArrivalNanos),
                bytesProcessedNow - bytesProcessedAtStart);
    }
}
