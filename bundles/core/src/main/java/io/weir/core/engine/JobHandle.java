package io.weir.core.engine;

import io.weir.core.checkpoint.CompletedCheckpoint;

import java.nio.file.Path;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/** A submitted job. Thread-safe. */
public interface JobHandle {
    /** @return the job name */
    String jobName();

    /** @return the current status */
    JobStatus status();

    /** @return completes when the job reaches a terminal status (never exceptionally) */
    CompletableFuture<JobResult> result();

    /**
     * Flink's {@code numRecordsOut} per operator: rows the operator's subtasks sent over network channels to
     * other tasks (a broadcast row counts once) since the current attempt's tasks were deployed; a restart
     * starts again from 0, as Flink's task metrics do. Only an operator whose output leaves its task has an
     * entry: a sink, or an operator chained into its successor (forward edge, equal parallelism), has none.
     * The values may lag the record path by the rows in partly filled network buffers (counted when a buffer
     * is sent).
     *
     * @return operator id → rows, >= 0; empty before the tasks are deployed and for engines that do not count
     */
    default java.util.Map<String, Long> recordsWritten() {
        return java.util.Map.of();
    }

    /**
     * When the current attempt's tasks sent their first row to another task: the earliest first-row time of any
     * network output of the attempt (what the node takes as "the first record processed" after a restore, e.g.
     * when it measures an upgrade's downtime). A job whose operators are all chained into one task has no network
     * output and answers -1.
     *
     * @return ms since the epoch, or -1 before the first row (and for engines that do not measure it)
     */
    default long firstRecordTimeMillis() {
        return -1;
    }

    /** @return a manual checkpoint, through the coordinator's request decider like a periodic one */
    CompletableFuture<CompletedCheckpoint> triggerCheckpoint();

    /**
     * Cancels the job: it goes CANCELLING while its tasks stop and pending checkpoints are aborted,
     * then CANCELED; completed checkpoints stay. Returns at once; a job that already ended is left
     * as it is.
     */
    void cancel();

    /**
     * Suspends the job because the engine running it stops (a node shutting down): tasks stop and
     * pending checkpoints are aborted as for {@link #cancel}, but the job ends SUSPENDED, which says
     * it is to be resumed from its latest completed checkpoint by a later run (Flink suspends a job
     * the same way when its JobManager shuts down). Returns at once; a job that already ended is
     * left as it is.
     */
    void suspend();

    /**
     * Takes a savepoint (PROTOCOL.md §7) through the request decider, like a manual checkpoint: aligned, every
     * state file in a new directory {@code savepoint-<job>-<6 hex digits>/} named from its {@code _metadata} by
     * relative paths, so it can be moved or copied and still restores ({@code weir run --from-savepoint}). The
     * job keeps running; two-phase-commit sinks commit on the savepoint's completion, as on a checkpoint's.
     *
     * @param directory where the savepoint's directory is created; empty for the job's
     *        {@code execution.checkpointing.savepoint-dir}
     * @return completes with the savepoint's directory (absolute), or exceptionally: IllegalArgumentException if no
     *         directory is given or configured; a {@code CheckpointException} if the savepoint fails (not all tasks
     *         running, declined, expired, its directory cannot be created)
     */
    default CompletableFuture<Path> triggerSavepoint(Optional<Path> directory) {
        return CompletableFuture.failedFuture(new UnsupportedOperationException(getClass().getSimpleName()
                + " cannot take savepoints"));
    }

    /**
     * Stops the job with a final savepoint (Flink's stop-with-savepoint): periodic checkpoints stop; with
     * {@code drain}, every source ends its input as if it were exhausted, so every operator finishes and flushes
     * before the savepoint; without it, sources stop reading at the savepoint's barrier and operators are not
     * finished (Weir has no timers or windows yet, so the two differ only in whether sources and operators get
     * end-of-input). Two-phase-commit sinks commit the savepoint, then every task ends and the job is FINISHED;
     * the job's own checkpoints are then removed (the savepoint supersedes them), so a later run resumes only
     * through {@code --from-savepoint}. If the savepoint fails, the job restarts from its latest checkpoint or
     * savepoint (one restart attempt) and keeps running.
     *
     * @param directory as in {@link #triggerSavepoint}
     * @param drain whether sources get end-of-input before the savepoint
     * @return completes with the savepoint's directory once the job is FINISHED, or exceptionally:
     *         IllegalArgumentException if no directory is given or configured; IllegalStateException if the job is
     *         not RUNNING or already stopping; the savepoint's failure otherwise
     */
    default CompletableFuture<Path> stopWithSavepoint(Optional<Path> directory, boolean drain) {
        return CompletableFuture.failedFuture(new UnsupportedOperationException(getClass().getSimpleName()
                + " cannot stop with a savepoint"));
    }
}
