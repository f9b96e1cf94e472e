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
}
