package io.weir.coordinator;

import io.weir.core.checkpoint.CheckpointException;
import io.weir.core.checkpoint.CheckpointFailureReason;
import io.weir.core.checkpoint.SubtaskCheckpointMetrics;
import io.weir.core.checkpoint.TaskId;
import io.weir.core.checkpoint.TaskStateSnapshot;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.Objects;

/**
 * Routes a task's ack or decline (PROTOCOL.md §2 "Acks"): records an ack on its pending checkpoint
 * and says what the coordinator must do next; logs what is ignored (late, duplicate, old attempt,
 * unknown id) at the level its cause deserves. Calls out to nothing, so the coordinator carries out
 * the {@link Route} itself. Not thread-safe: checkpoint timer thread only.
 */
final class AckRouter {
    /** The coordinator's category, so log lines and their configuration stay as they were before the split. */
    private static final Logger LOG = LoggerFactory.getLogger(CheckpointCoordinator.class);

    /** What the coordinator does after an ack or decline. */
    sealed interface Route permits Complete, Abort, DiscardLateState, Ignore {
    }

    /** Every task acked {@code checkpoint}: finalize it. */
    record Complete(PendingCheckpoint checkpoint) implements Route {
        Complete {
            Objects.requireNonNull(checkpoint, "checkpoint");
        }
    }

    /** A task declined {@code checkpoint}: abort it with {@code reason}; {@code cause} names the task. */
    record Abort(PendingCheckpoint checkpoint, CheckpointFailureReason reason, CheckpointException cause) implements Route {
        Abort {
            Objects.requireNonNull(checkpoint, "checkpoint");
            Objects.requireNonNull(reason, "reason");
            Objects.requireNonNull(cause, "cause");
        }
    }

    /** A late ack for aborted checkpoint {@code checkpointId}: discard the state it wrote. */
    record DiscardLateState(long checkpointId) implements Route {
    }

    /** Nothing to do (already logged). */
    record Ignore() implements Route {
    }

    private static final Ignore IGNORE = new Ignore();

    private final String jobName;
    /** Timer thread only (shared with the coordinator, which adds and removes checkpoints). */
    private final PendingCheckpoints checkpoints;

    /**
     * @param jobName the job, for log lines and errors
     * @param checkpoints the coordinator's pending and recent checkpoints
     */
    AckRouter(String jobName, PendingCheckpoints checkpoints) {
        this.jobName = jobName;
        this.checkpoints = Objects.requireNonNull(checkpoints, "checkpoints");
    }

    /**
     * Records {@code task}'s ack of checkpoint {@code id} if it is pending and waits for the task.
     *
     * @return {@link Complete} if that was the last ack, {@link DiscardLateState} for a recently aborted
     *         id, else {@link Ignore}
     */
    Route onAcknowledge(TaskId task, long id, SubtaskCheckpointMetrics metrics, TaskStateSnapshot state) {
        PendingCheckpoint p = checkpoints.get(id);
        if (p == null) {
            switch (checkpoints.statusOf(id)) {
                case RECENTLY_ABORTED -> {
                    LOG.debug("Late ack from task {} for checkpoint {} of job {}, which was aborted or expired; discarding its state",
                            task, id, jobName);
                    return new DiscardLateState(id);
                }
                case RECENTLY_COMPLETED ->
                        LOG.debug("Ignoring duplicate ack from task {} for completed checkpoint {} of job {}", task, id, jobName);
                default ->
                        LOG.error("Received an ack from task {} for unknown checkpoint {} of job {}; ignoring it", task, id, jobName);
            }
            return IGNORE;
        }
        switch (p.acknowledge(task, metrics, state)) {
            case SUCCESS -> {
                LOG.debug("Task {} acknowledged checkpoint {} of job {} ({} bytes)", task, id, jobName,
                        metrics.checkpointedSizeBytes());
                if (p.isFullyAcknowledged()) {
                    return new Complete(p);
                }
            }
            case DUPLICATE -> LOG.debug("Ignoring duplicate ack from task {} for checkpoint {} of job {}", task, id, jobName);
            case UNKNOWN_TASK -> logIgnoredTask("ack", p, task);
            case NOT_ACCEPTING -> LOG.warn("Ignoring ack from task {} for checkpoint {} of job {} in state {}", task, id,
                    jobName, p.state());
        }
        return IGNORE;
    }

    /**
     * Handles {@code task}'s decline of checkpoint {@code id}. A counted reason aborts with
     * CHECKPOINT_DECLINED; a not-counted one (e.g. the task was not ready) is kept, so it stays uncounted.
     *
     * @param reason may be null (then CHECKPOINT_DECLINED)
     * @param cause may be null
     * @return {@link Abort} if the checkpoint is pending and waits for this task, else {@link Ignore}
     */
    Route onDecline(TaskId task, long id, CheckpointFailureReason reason, Throwable cause) {
        PendingCheckpoint p = checkpoints.get(id);
        if (p == null) {
            if (checkpoints.statusOf(id) != PendingCheckpoints.Status.UNKNOWN) {
                LOG.debug("Late decline from task {} for finished checkpoint {} of job {}", task, id, jobName);
            } else {
                LOG.warn("Received a decline from task {} for unknown checkpoint {} of job {}; ignoring it", task, id, jobName);
            }
            return IGNORE;
        }
        if (!p.waitsFor(task)) {
            logIgnoredTask("decline", p, task);
            return IGNORE;
        }
        CheckpointFailureReason given = reason == null ? CheckpointFailureReason.CHECKPOINT_DECLINED : reason;
        CheckpointFailureReason abortReason = given.isCounted() ? CheckpointFailureReason.CHECKPOINT_DECLINED : given;
        LOG.info("Checkpoint {} of job {} declined by task {}: {}", id, jobName, task, given.message(), cause);
        return new Abort(p, abortReason, new CheckpointException(given, "Declined by task " + task + " (checkpoint " + id
                + " of job " + jobName + ").", cause));
    }

    private void logIgnoredTask(String what, PendingCheckpoint p, TaskId task) {
        if (p.plan().waitsForOtherAttemptOf(task)) {
            LOG.info("Ignoring {} from old attempt {} for checkpoint {} of job {}", what, task, p.checkpointId(), jobName);
        } else {
            LOG.warn("Ignoring {} from task {}, which checkpoint {} of job {} does not wait for", what, task,
                    p.checkpointId(), jobName);
        }
    }
}
