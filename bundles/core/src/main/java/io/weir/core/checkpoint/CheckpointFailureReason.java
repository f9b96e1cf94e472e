package io.weir.core.checkpoint;

/**
 * Why a checkpoint failed, and whether that counts toward
 * {@code execution.checkpointing.tolerable-failed-checkpoints} (PROTOCOL.md §2).
 */
public enum CheckpointFailureReason {
    /** Pending longer than the timeout. Counted. */
    CHECKPOINT_EXPIRED(true, "Checkpoint expired before completing."),
    /** A task's snapshot threw. Counted. */
    CHECKPOINT_DECLINED(true, "Checkpoint was declined by a task."),
    /** Writing state or metadata failed. Counted. */
    IO_EXCEPTION(true, "An I/O error occurred while writing the checkpoint."),
    /** Finalizing (metadata, store) failed. Counted. */
    FINALIZE_CHECKPOINT_FAILURE(true, "Failure to finalize checkpoint."),
    /** Some task was not running. Not counted. */
    NOT_ALL_REQUIRED_TASKS_RUNNING(false, "Not all required tasks are currently running."),
    /** A task had not started its mailbox yet. Not counted. */
    TASK_NOT_READY(false, "Task was not ready to checkpoint."),
    /** Too many pending checkpoints. Not counted. */
    TOO_MANY_CHECKPOINT_REQUESTS(false, "The maximum number of queued checkpoint requests exceeded."),
    /** Minimum pause not over. Not counted. */
    MINIMUM_TIME_BETWEEN_CHECKPOINTS(false, "The minimum time between checkpoints is still pending."),
    /** The job is shutting down or failing over. Not counted. */
    JOB_SHUTTING_DOWN(false, "The job is shutting down or restarting."),
    /** A newer checkpoint's barrier arrived while this one was aligning. Not counted. */
    CHECKPOINT_SUBSUMED(false, "Checkpoint was subsumed by a newer one."),
    /** A cancel marker arrived from upstream. Not counted (the origin is counted). */
    CHECKPOINT_DECLINED_ON_CANCELLATION_BARRIER(false, "Task received a cancellation from an upstream task.");

    private final boolean counted;
    private final String message;

    CheckpointFailureReason(boolean counted, String message) {
        this.counted = counted;
        this.message = message;
    }

    /** @return whether this failure counts toward the tolerable-failures threshold */
    public boolean isCounted() {
        return counted;
    }

    /** @return a human-readable explanation */
    public String message() {
        return message;
    }
}
