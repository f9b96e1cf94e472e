package io.weir.rest.node;

import io.weir.core.checkpoint.CheckpointFailureReason;
import io.weir.core.coordination.CompletedCheckpointStats;
import io.weir.core.engine.JobListener;
import io.weir.core.engine.JobStatus;

/**
 * Tells two listeners about one run, the first one first (the node's job table, then the cluster's). Thread-safe if
 * both are.
 *
 * @param first told first
 * @param second told second
 */
record TeeJobListener(JobListener first, JobListener second) implements JobListener {
    @Override
    public void onCompleted(CompletedCheckpointStats stats) {
        first.onCompleted(stats);
        second.onCompleted(stats);
    }

    @Override
    public void onFailed(long checkpointId, CheckpointFailureReason reason, Throwable cause) {
        first.onFailed(checkpointId, reason, cause);
        second.onFailed(checkpointId, reason, cause);
    }

    @Override
    public void onStatusChange(String jobName, JobStatus from, JobStatus to) {
        first.onStatusChange(jobName, from, to);
        second.onStatusChange(jobName, from, to);
    }

    @Override
    public void onRestore(String jobName, long checkpointId, String pointer) {
        first.onRestore(jobName, checkpointId, pointer);
        second.onRestore(jobName, checkpointId, pointer);
    }

    @Override
    public void onRestart(String jobName, int attempt, Throwable cause) {
        first.onRestart(jobName, attempt, cause);
        second.onRestart(jobName, attempt, cause);
    }

    @Override
    public void onWarning(String jobName, String message) {
        first.onWarning(jobName, message);
        second.onWarning(jobName, message);
    }
}
