package io.weir.core.barrier;

import io.weir.core.checkpoint.CancelCheckpointMarker;
import io.weir.core.checkpoint.CheckpointBarrier;

/**
 * Intercepts barriers and cancel markers at a task's inputs before they reach the operator and
 * decides when the task snapshots (PROTOCOL.md §4). One instance per task, task thread only;
 * implementations are small state machines. Every input channel delivers every barrier: a task
 * that finished its input keeps forwarding barriers until the final checkpoint, so no channel
 * ends while a checkpoint can still need its barrier.
 */
public interface CheckpointBarrierHandler {
    /** A barrier arrived on {@code channel}. */
    void processBarrier(CheckpointBarrier barrier, int channel);

    /** A cancel marker arrived on {@code channel}: stop aligning for that checkpoint. */
    void processCancellationBarrier(CancelCheckpointMarker marker, int channel);

    /**
     * The timer registered with {@link BarrierHandlerContext#registerAlignmentTimer} fired: if
     * still aligning {@code checkpointId}, switch it to unaligned. Default: ignore.
     */
    default void onAlignmentTimeout(long checkpointId) {
    }

    /** {@code bytes} of records were read from a channel (counted while aligning). */
    default void onBytesProcessed(long bytes) {
    }

    /** @return the id of the latest checkpoint this handler has seen a barrier or marker for, 0 if none */
    long latestCheckpointId();

    /** @return whether a checkpoint is currently being aligned */
    boolean isAligning();

    /** Abandons any alignment in progress (the task is shutting down); resumes blocked channels. */
    void close();
}
