package io.weir.core.barrier;

import io.weir.core.checkpoint.CheckpointBarrier;
import io.weir.core.checkpoint.CheckpointFailureReason;

/**
 * What the runtime offers a {@link CheckpointBarrierHandler}: control over the input channels and
 * the task's checkpoint actions. Task thread only.
 */
public interface BarrierHandlerContext {
    /** @return the number of input channels of the task (all gates together), ≥ 1 */
    int numberOfInputChannels();

    /**
     * Stops consuming {@code channel}: the task reads nothing more from it and the upstream
     * subpartition stops sending, so held-back data stays upstream (PROTOCOL.md §4).
     */
    void blockChannel(int channel);

    /** Resumes every blocked channel. */
    void resumeAllChannels();

    /**
     * Runs the task's {@code checkpointState} for the barrier (PROTOCOL.md §3 steps 0–5).
     *
     * @param barrier the barrier of the checkpoint
     * @param alignment the barrier timings measured by the handler
     */
    void triggerCheckpointOnBarrier(CheckpointBarrier barrier, BarrierAlignment alignment);

    /**
     * Aborts the checkpoint at this task: declines it to the coordinator (if {@code reason} is the
     * origin) and forwards a {@code CancelCheckpointMarker} downstream.
     */
    void abortCheckpointOnBarrier(long checkpointId, CheckpointFailureReason reason);

    /** @return the current time in ns ({@link System#nanoTime()} in production; settable in tests) */
    long nanoTime();

    /** @return the current wall-clock time in ms since the epoch */
    long currentTimeMillis();
}
