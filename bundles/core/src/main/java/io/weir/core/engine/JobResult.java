package io.weir.core.engine;

import io.weir.core.coordination.CompletedCheckpointStats;

/**
 * How a job ended.
 *
 * @param jobName the job
 * @param status FINISHED, FAILED or CANCELED
 * @param failure the cause for FAILED, else null
 * @param restarts how many times all tasks were restarted
 * @param lastCheckpoint statistics of the last completed checkpoint, or null if none completed
 */
public record JobResult(String jobName, JobStatus status, Throwable failure, int restarts, CompletedCheckpointStats lastCheckpoint) {
}
