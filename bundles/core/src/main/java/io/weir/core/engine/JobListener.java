package io.weir.core.engine;

import io.weir.core.coordination.CheckpointStatsListener;

/** Follows one job: checkpoints (from {@link CheckpointStatsListener}), restarts and status changes. Thread-safe. */
public interface JobListener extends CheckpointStatsListener {
    /** The job changed status. */
    default void onStatusChange(String jobName, JobStatus from, JobStatus to) {
    }

    /** Tasks are about to start from checkpoint {@code checkpointId} at {@code pointer} (a failover, or a run resuming an unfinished one). */
    default void onRestore(String jobName, long checkpointId, String pointer) {
    }

    /** All tasks are restarting (attempt ≥ 1) because of {@code cause}. */
    default void onRestart(String jobName, int attempt, Throwable cause) {
    }

    /**
     * Something the user asked for did not happen, without failing the job (e.g. a
     * {@code debug.inject-failure.*} failure that never fired). Called at most a few times per run,
     * before the terminal {@link #onStatusChange} is delivered.
     *
     * @param message one line naming the option or setting concerned and what to change
     */
    default void onWarning(String jobName, String message) {
    }
}
