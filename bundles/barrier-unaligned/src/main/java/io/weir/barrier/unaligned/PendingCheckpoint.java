package io.weir.barrier.unaligned;

import io.weir.core.barrier.BarrierAlignment;
import io.weir.core.checkpoint.CheckpointAlignment;
import io.weir.core.checkpoint.CheckpointBarrier;
import java.util.BitSet;

/**
 * The checkpoint in progress at one task: the barriers received so far, whether channels are
 * blocked for it, and the timings needed for its {@link BarrierAlignment} and its alignment timer
 * (PROTOCOL.md §5, §6).
 *
 * <p>Task thread only: not thread-safe, owned by one handler.
 */
final class PendingCheckpoint {
    private final CheckpointBarrier barrier;
    private final long firstArrivalNanos;
    private final long startDelayMs;
    private final long bytesProcessedAtStart;
    /** Channels that delivered the barrier. Task thread only. */
    private final BitSet delivered = new BitSet();
    /** Whether channels are currently blocked for this checkpoint. Task thread only. */
    private boolean blocked;

    /**
     * @param barrier the first barrier received
     * @param firstArrivalNanos {@code nanoTime()} at the first barrier, ns
     * @param firstArrivalMillis wall clock at the first barrier, ms since the epoch
     * @param bytesProcessedAtStart the handler's running total of processed bytes at the first barrier
     */
    PendingCheckpoint(CheckpointBarrier barrier, long firstArrivalNanos, long firstArrivalMillis,
            long bytesProcessedAtStart) {
        this.barrier = barrier;
        this.firstArrivalNanos = firstArrivalNanos;
        this.startDelayMs = Math.max(0, firstArrivalMillis - barrier.timestamp());
        this.bytesProcessedAtStart = bytesProcessedAtStart;
    }

    /** @return the checkpoint id, ≥ 1 */
    long checkpointId() {
        return barrier.checkpointId();
    }

    /** @return the first barrier received, with the options it arrived with */
    CheckpointBarrier barrier() {
        return barrier;
    }

    /**
     * @return whether the checkpoint is aligned with a timeout, i.e. its options are
     *     {@link CheckpointAlignment#ALIGNED_WITH_TIMEOUT} with a timeout above 0 ms (a 0 ms timeout
     *     means "no timeout": plain aligned)
     */
    boolean isTimeoutable() {
        return barrier.options().alignment() == CheckpointAlignment.ALIGNED_WITH_TIMEOUT
                && barrier.options().alignedTimeoutMs() > 0;
    }

    /**
     * @return ms from the first barrier until the aligned-checkpoint timeout expires, ≥ 0: the
     *     timeout counts from checkpoint creation, so the start delay is already used up
     */
    long timerDelayMs() {
        return Math.max(0, barrier.options().alignedTimeoutMs() - startDelayMs);
    }

    /** @return whether {@code channel} already delivered this barrier */
    boolean hasDelivered(int channel) {
        return delivered.get(channel);
    }

    /** Records that {@code channel} delivered the barrier. */
    void markDelivered(int channel) {
        delivered.set(channel);
    }

    /** @return the channels that delivered the barrier (live view, do not modify) */
    BitSet delivered() {
        return delivered;
    }

    /** Records that the handler blocked a channel for this checkpoint. */
    void markBlocked() {
        blocked = true;
    }

    /** Records that the handler resumed all channels (the checkpoint switched to unaligned). */
    void markResumed() {
        blocked = false;
    }

    /** @return whether channels are blocked for this checkpoint */
    boolean hasBlockedChannels() {
        return blocked;
    }

    /** @return whether every live channel of {@code channels} delivered the barrier */
    boolean isComplete(InputChannels channels) {
        return channels.liveNotIn(delivered).length == 0;
    }

    /**
     * @param nowNanos {@code nanoTime()} now (when the checkpoint is triggered), ns
     * @param bytesProcessedNow the handler's running total of processed bytes now
     * @return startDelay = max(0, first arrival ms − barrier timestamp), alignment duration = now −
     *     first arrival (ns, ≥ 0; 0 at the first barrier), bytes processed since the first barrier
     */
    BarrierAlignment alignment(long nowNanos, long bytesProcessedNow) {
        return new BarrierAlignment(startDelayMs, Math.max(0, nowNanos - firstArrivalNanos),
                bytesProcessedNow - bytesProcessedAtStart);
    }
}
