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

    /**
     * Unaligned checkpoints (PROTOCOL.md §6): from now on every buffer read from each of
     * {@code channels} is also written to checkpoint {@code checkpointId}'s input channel state,
     * until {@link #stopPersistingInflight} for that channel (its barrier arrived). Call right
     * after {@link #triggerCheckpointOnBarrier} with an unaligned barrier, naming the live channels
     * whose barrier has not arrived yet.
     */
    default void startPersistingInflight(long checkpointId, int[] channels) {
        throw new UnsupportedOperationException("this runtime does not persist in-flight data");
    }

    /** The barrier of {@code checkpointId} arrived on {@code channel}: its in-flight data is complete. */
    default void stopPersistingInflight(long checkpointId, int channel) {
        throw new UnsupportedOperationException("this runtime does not persist in-flight data");
    }

    /**
     * Asks the upstream side of {@code channel} to let its pending barrier of {@code checkpointId}
     * overtake the data queued before it (an aligned-with-timeout checkpoint switching to unaligned);
     * the overtaken data becomes the producer's output channel state. No-op if the barrier already left.
     */
    default void requestPriorityBarrier(long checkpointId, int channel) {
        throw new UnsupportedOperationException("this runtime does not support unaligned checkpoints");
    }

    /**
     * Calls {@link CheckpointBarrierHandler#onAlignmentTimeout} for {@code checkpointId} on the task
     * thread after {@code delayMs}, unless the task ended (aligned-checkpoint timeout, PROTOCOL.md §3 step 3).
     */
    default void registerAlignmentTimer(long checkpointId, long delayMs) {
        throw new UnsupportedOperationException("this runtime does not support alignment timers");
    }

    /** @return the current time in ns ({@link System#nanoTime()} in production; settable in tests) */
    long nanoTime();

    /** @return the current wall-clock time in ms since the epoch */
    long currentTimeMillis();
}
