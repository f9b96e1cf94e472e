package io.weir.barrier.unaligned;

import io.weir.core.barrier.PendingBarriers;
import io.weir.core.checkpoint.CheckpointAlignment;
import io.weir.core.checkpoint.CheckpointBarrier;

/**
 * The aligned-checkpoint timeout of one checkpoint (PROTOCOL.md §3 step 3, §6): whether a
 * checkpoint may switch from aligned to unaligned, and when its alignment timer fires. Stateless.
 */
final class AlignmentTimeout {
    private AlignmentTimeout() {
    }

    /**
     * @param barrier a barrier of the checkpoint, with the options it arrived with
     * @return whether the checkpoint is aligned with a timeout, i.e. its options are
     *     {@link CheckpointAlignment#ALIGNED_WITH_TIMEOUT} with a timeout above 0 ms (a 0 ms timeout
     *     means "no timeout": plain aligned)
     */
    static boolean appliesTo(CheckpointBarrier barrier) {
        return barrier.options().alignment() == CheckpointAlignment.ALIGNED_WITH_TIMEOUT
                && barrier.options().alignedTimeoutMs() > 0;
    }

    /**
     * @param checkpoint the checkpoint in progress, started at its first barrier
     * @return ms from the first barrier until the aligned-checkpoint timeout expires, ≥ 0: the
     *     timeout counts from checkpoint creation, so the start delay is already used up
     */
    static long timerDelayMs(PendingBarriers checkpoint) {
        return Math.max(0, checkpoint.barrier().options().alignedTimeoutMs() - checkpoint.measurement().startDelayMs());
    }
}
