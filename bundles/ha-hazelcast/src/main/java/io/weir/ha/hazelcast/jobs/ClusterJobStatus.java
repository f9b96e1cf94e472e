package io.weir.ha.hazelcast.jobs;

/**
 * Where a cluster job is. RUNNING covers "waiting for an owner" (owner null) and "running on its owner"; the three
 * others are globally terminal: the job's checkpoint id counter and completed store are then removed.
 *
 * <pre>
 *   RUNNING ──▶ FINISHED | FAILED | CANCELED       (a resubmission of the name starts RUNNING again)
 * </pre>
 */
public enum ClusterJobStatus {
    /** To run: assigned to an owner, or waiting for the leader to assign it. */
    RUNNING,
    /** Bounded input fully processed and committed. */
    FINISHED,
    /** Failed for good on its owner. */
    FAILED,
    /** Cancelled by a user. */
    CANCELED;

    /** @return true for FINISHED, FAILED, CANCELED */
    public boolean isTerminal() {
        return this != RUNNING;
    }
}
