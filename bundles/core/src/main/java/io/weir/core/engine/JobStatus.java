package io.weir.core.engine;

/**
 * Status of a job.
 *
 * <pre>
 * CREATED → RUNNING → FINISHED
 *              │  ↑
 *              ↓  │
 *          RESTARTING ──→ FAILED
 * RUNNING/RESTARTING → CANCELED
 * </pre>
 */
public enum JobStatus {
    /** Submitted, tasks being deployed. */
    CREATED,
    /** Every task deployed; checkpoints are triggered once all tasks run. */
    RUNNING,
    /** A task failed; all tasks are being restarted from the latest completed checkpoint. */
    RESTARTING,
    /** Bounded input fully processed and committed by the final checkpoint. */
    FINISHED,
    /** Restart attempts exhausted or an unrecoverable error. */
    FAILED,
    /** Cancelled by the user. */
    CANCELED;

    /** @return whether the job can no longer change status */
    public boolean isTerminal() {
        return this == FINISHED || this == FAILED || this == CANCELED;
    }
}
