package io.weir.console.poll;

/**
 * One job of one node as the jobs page shows it. Times in ms since the epoch, durations in ms, sizes in bytes; a
 * {@code null} checkpoint field means no checkpoint completed yet.
 *
 * @param node the node's name in the configuration
 * @param id the job id (32 hex digits)
 * @param name the job's name
 * @param state Flink's job status (RUNNING, FINISHED, …)
 * @param startTime when the job was first submitted
 * @param uptimeMs how long it has run (its duration once ended)
 * @param parallelism the highest parallelism of its operators; 0 when unknown (an ended job after a node restart)
 * @param lastCheckpointId id of the last completed checkpoint
 * @param lastCheckpointAgeMs how long ago it completed (node's clock)
 * @param lastCheckpointDurationMs its end-to-end duration
 * @param lastCheckpointSize its state size
 * @param recordsPerSecond rows its sources sent per second between the last two polls; 0 when unknown
 * @param restarts restarts of the job's tasks
 * @param failedCheckpoints failed checkpoints since the node started the job
 * @param checkpointIntervalMs the job's checkpoint interval; -1 when off or unknown
 * @param runsOn when the node is a cluster member: the REST URL of the member that runs the job ("" while none does;
 *        the node answers for the whole cluster), else null
 */
public record JobRow(String node, String id, String name, String state, long startTime, long uptimeMs, int parallelism,
                     Long lastCheckpointId, Long lastCheckpointAgeMs, Long lastCheckpointDurationMs, Long lastCheckpointSize,
                     double recordsPerSecond, long restarts, long failedCheckpoints, long checkpointIntervalMs,
                     String runsOn) {

    /** @return whether the job has not ended (its status is not FINISHED, FAILED or CANCELED) */
    public boolean active() {
        return !("FINISHED".equals(state) || "FAILED".equals(state) || "CANCELED".equals(state));
    }
}
