package io.weir.core.coordination;

import io.weir.core.checkpoint.CheckpointFailureReason;
import io.weir.core.checkpoint.CompletedCheckpoint;

import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * The runtime's view of a job's checkpoint coordinator (PROTOCOL.md §2). Thread-safe.
 */
public interface CheckpointCoordinatorGateway extends CheckpointResponder {
    /**
     * Starts periodic triggering. Call only when the job and every task are RUNNING. No-op if
     * {@code execution.checkpointing.interval} is unset.
     */
    void startCheckpointScheduler();

    /** Stops periodic triggering (job leaves RUNNING). */
    void stopCheckpointScheduler();

    /**
     * Triggers a checkpoint through the request decider.
     *
     * @return completes with the checkpoint, or exceptionally with a {@code CheckpointException}
     */
    CompletableFuture<CompletedCheckpoint> triggerCheckpoint(CheckpointTriggerKind kind);

    /** Aborts every pending checkpoint, e.g. on failover; their tasks get notifyCheckpointAborted. */
    void abortPendingCheckpoints(CheckpointFailureReason reason);

    /**
     * @return the checkpoint to restore from (the latest completed); also moves the ID counter past it
     */
    Optional<CompletedCheckpoint> restoreLatestCheckpoint() throws Exception;

    /** Stops the scheduler, aborts pending checkpoints and releases threads. */
    void shutdown();
}
