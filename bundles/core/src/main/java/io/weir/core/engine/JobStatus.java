package io.weir.core.engine;

import java.util.Collections;
import java.util.EnumSet;
import java.util.Set;

/**
 * Status of a job, with the transitions allowed from each status (Flink's {@code JobStatus}
 * diagram, without the transient FAILING/CANCELLING states Weir does not report).
 *
 * <pre>
 * CREATED ──────────→ RUNNING ──────────→ FINISHED
 *    │                 │    ↑
 *    │                 ↓    │
 *    └──────────────→ RESTARTING
 *
 * CREATED, RUNNING, RESTARTING ──→ FAILED | CANCELED
 * FINISHED, FAILED, CANCELED: terminal, no transition leaves them
 * </pre>
 *
 * <ul>
 * <li>CREATED → RESTARTING: a task failed before every task of the first attempt was running.</li>
 * <li>RESTARTING → RUNNING: every task of the new attempt is running.</li>
 * <li>RUNNING → FINISHED: only a running job finishes (all tasks committed the final checkpoint).</li>
 * </ul>
 *
 * <p>The job master calls {@link #transitionTo} on every change, so a change not in the diagram
 * fails loudly instead of being published to listeners.
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

    /** @return the statuses this one may change to (unmodifiable; empty for a terminal status) */
    public Set<JobStatus> allowedTransitions() {
        return Collections.unmodifiableSet(switch (this) {
            case CREATED -> EnumSet.of(RUNNING, RESTARTING, FAILED, CANCELED);
            case RUNNING -> EnumSet.of(RESTARTING, FINISHED, FAILED, CANCELED);
            case RESTARTING -> EnumSet.of(RUNNING, FAILED, CANCELED);
            case FINISHED, FAILED, CANCELED -> EnumSet.noneOf(JobStatus.class);
        });
    }

    /** @return whether the diagram allows changing from this status to {@code to} (never to itself) */
    public boolean canTransitionTo(JobStatus to) {
        return allowedTransitions().contains(to);
    }

    /**
     * Checks a status change against the diagram.
     *
     * @param to the new status, not null
     * @return {@code to}, so callers can write {@code status = status.transitionTo(next)}
     * @throws IllegalStateException naming both statuses (and the allowed ones) if the diagram has
     *         no such transition, including any transition out of a terminal status
     * @throws NullPointerException if {@code to} is null
     */
    public JobStatus transitionTo(JobStatus to) {
        if (to == null) {
            throw new NullPointerException("job status transition from " + this + " to null");
        }
        if (!canTransitionTo(to)) {
            throw new IllegalStateException("illegal job status transition " + this + " -> " + to
                    + (isTerminal() ? " (" + this + " is terminal)" : "; allowed from " + this + ": " + allowedTransitions()));
        }
        return to;
    }
}
