package io.weir.barrier.aligned;

import io.weir.core.barrier.BarrierAlignment;
import io.weir.core.checkpoint.CheckpointBarrier;
import java.util.BitSet;

/**
 * The barriers of one checkpoint received so far at one task, with the timings needed for its
 * {@link BarrierAlignment} (PROTOCOL.md §5).
 *
 * <p>Task thread only: not thread-safe, owned by one handler.
 */
final class PendingBarriers {
    private final CheckpointBarrier barrier;
    private final long firstArrivalNanos;
    private final long firstArrivalMillis;
    private final long bytesProcessedAtStart;
    /** Channels that delivered the barrier. Task thread only. */
    private final BitSet delivered = new BitSet();
    /** Whether the handler blocked at least one channel for this checkpoint. Task thread only. */
    private boolean blocked;

    /**
     * @param barrier the first barrier received (all barriers of one checkpoint are equal)
     * @param firstArrivalNanos {@code nanoTime()} at the first barrier, ns
     * @param firstArrivalMillis wall clock at the first barrier, ms since the epoch
     * @param bytesProcessedAtStart the handler's running total of processed bytes at the first barrier
     */
    PendingBarriers(CheckpointBarrier barrier, long firstArrivalNanos, long firstArrivalMillis,
            long bytesProcessedAtStart) {
        this.barrier = barrier;
        this.firstArrivalNanos = firstArrivalNanos;
        this.firstArrivalMillis = firstArrivalMillis;
        this.bytesProcessedAtStart = bytesProcessedAtStart;
    }

    /** @return the checkpoint id, ≥ 1 */
    long checkpointId() {
        return barrier.checkpointId();
    }

    /** @return the first barrier received */
    CheckpointBarrier barrier() {
        return barrier;
    }

    /** @return whether {@code channel} already delivered this barrier */
    boolean hasDelivered(int channel) {
        return delivered.get(channel);
    }

    /** Records that {@code channel} delivered the barrier. */
    void markDelivered(int channel) {
        delivered.set(channel);
    }

    /** Records that the handler blocked a channel for this checkpoint. */
    void markBlocked() {
        blocked = true;
    }

    /** @return whether the handler blocked at least one channel for this checkpoint */
    boolean hasBlockedChannels() {
        return blocked;
    }

    /** @return whether every live channel of {@code channels} delivered the barrier */
    boolean isComplete(InputChannels channels) {
        return channels.allLiveIn(delivered);
    }

    /**
     * @param nowNanos {@code nanoTime()} now (at the last barrier), ns
     * @param bytesProcessedNow the handler's running total of processed bytes now
     * @return startDelay = max(0, first arrival ms − barrier timestamp), alignment duration = now −
     *     first arrival (ns, ≥ 0), bytes processed since the first barrier
     */
    BarrierAlignment alignment(long nowNanos, long bytesProcessedNow) {
        return new BarrierAlignment(
                Math.max(0, firstArrivalMillis - barrier.timestamp()),
                Math.max(0, nowNanos - firstArrivalNanos),
                bytesProcessedNow - bytesProcessedAtStart);
    }
}
