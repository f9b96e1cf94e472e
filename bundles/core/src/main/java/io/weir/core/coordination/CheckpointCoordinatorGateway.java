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

    /**
     * Triggers a savepoint through the request decider, like a manual checkpoint (PROTOCOL.md §7): always
     * aligned, written self-contained into a new directory {@code savepoint-<job>-<6 hex digits>/} under
     * {@code targetDirectory}, never added to the completed-checkpoint store (never subsumed or discarded, not
     * counted in {@code num-retained}). Its completion is notified to the tasks like a checkpoint's (two-phase
     * commit sinks commit on it), and until a newer checkpoint completes it is what a failover restores.
     *
     * @param targetDirectory the parent of the savepoint's directory; created if missing
     * @param terminate whether the savepoint ends the job (stop-with-savepoint): its barriers carry the final
     *        flag, so every task ends once it is notified of the savepoint's completion
     * @return completes with the savepoint ({@link CompletedCheckpoint#externalPointer()} is its directory), or
     *         exceptionally with a {@code CheckpointException} (e.g. not all tasks running, expired, declined, or
     *         IO_EXCEPTION naming the directory that could not be created)
     * @throws UnsupportedOperationException from this default: the coordinator has no savepoints
     */
    default CompletableFuture<CompletedCheckpoint> triggerSavepoint(String targetDirectory, boolean terminate) {
        throw new UnsupportedOperationException(getClass().getSimpleName() + " cannot take savepoints");
    }

    /**
     * Aborts every pending checkpoint and fails every queued checkpoint request (manual, final) with
     * {@code reason}, e.g. on failover. Pending checkpoints' tasks get notifyCheckpointAborted; a
     * queued request is failed rather than started, since it would start on tasks that are going away
     * (Flink aborts queued requests together with pending ones). Returns at once; takes effect on the
     * coordinator's thread after every call made before it.
     */
    void abortPendingCheckpoints(CheckpointFailureReason reason);

    /**
     * Picks the checkpoint to restore from, on the coordinator's thread, once nothing can complete any
     * more: stops the periodic scheduler, fails queued requests and aborts pending checkpoints with
     * {@code reason} (acks that arrive later are late acks; their state is discarded), then reads the
     * latest completed checkpoint (the completed store, else the storage's newest {@code _metadata}; a savepoint
     * taken in this run if it is newer), moves the ID counter past it and restores the master hooks. On the
     * first call only, if the job's configuration names a savepoint or retained checkpoint
     * ({@code execution.savepoint.path}), that one is restored instead: the job's own checkpoint directory must
     * then hold no completed checkpoint, and state of operators the job lacks fails the restore unless
     * {@code execution.savepoint.ignore-unclaimed-state} is set. Every restore goes through here
     * (first start, failover), so a checkpoint whose {@code _metadata} is being written when the
     * restore is requested either completes first and is chosen, or is aborted and never completes.
     * The caller restarts the scheduler once the new attempt's tasks run. The new attempt places its keys with
     * the chosen checkpoint's {@link io.weir.core.state.KeyHashVersion} ({@code KeyHashVersion.CURRENT} if there
     * is none), and every checkpoint completed from then on records that version.
     *
     * @param reason why pending checkpoints are aborted; should not be counted (e.g. JOB_SHUTTING_DOWN)
     * @return completes with the checkpoint (empty if there is none), or exceptionally if the store,
     *         the storage, the ID counter or a master hook fails (naming the job), or with a
     *         {@code CheckpointException} (JOB_SHUTTING_DOWN) if the coordinator is shut down
     */
    CompletableFuture<Optional<CompletedCheckpoint>> restoreLatestCheckpoint(CheckpointFailureReason reason);

    /** Stops the scheduler, aborts pending checkpoints and releases threads. */
    void shutdown();
}
