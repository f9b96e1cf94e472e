package io.weir.core.engine;

import java.util.Collections;
import java.util.EnumSet;
import java.util.Set;

/**
 * Status of a job, with the transitions allowed from each status (Flink's {@code JobStatus}
 * diagram, with its transient FAILING and CANCELLING states and its locally terminal SUSPENDED).
 *
 * <pre>
 * CREATED ──────────→ RUNNING ──────────→ FINISHED
 *    │                 │    ↑
 *    │                 ↓    │
 *    └──────────────→ RESTARTING
 *
 * CREATED, RUNNING, RESTARTING ──→ FAILING ──→ FAILED
 * CREATED, RUNNING, RESTARTING ──→ CANCELLING ──→ CANCELED
 * CREATED, RUNNING, RESTARTING ──→ SUSPENDED
 * FINISHED, FAILED, CANCELED, SUSPENDED: terminal here, no transition leaves them
 * </pre>
 *
 * <ul>
 * <li>CREATED → RESTARTING: a task failed before every task of the first attempt was running.</li>
 * <li>RESTARTING → RUNNING: every task of the new attempt is running.</li>
 * <li>RUNNING → FINISHED: only a running job finishes (all tasks committed the final checkpoint).</li>
 * <li>FAILING, CANCELLING: the job's tasks are being cancelled and its coordinator stopped before the
 *     job is FAILED or CANCELED.</li>
 * <li>SUSPENDED: the engine running the job stopped (a node shutting down) and took the job with it;
 *     its checkpoints are kept and the job is meant to be resumed from them, by this engine when it
 *     starts again or by another. Terminal for the job master that suspended it ({@link #isTerminal}),
 *     not for the job ({@link #isGloballyTerminal}).</li>
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
    /** The job failed for good; its tasks are being cancelled before it is {@link #FAILED}. */
    FAILING,
    /** Cancelled by the user; its tasks are being cancelled before it is {@link #CANCELED}. */
    CANCELLING,
    /** Bounded input fully processed and committed by the final checkpoint. */
    FINISHED,
    /** Restart attempts exhausted or an unrecoverable error. */
    FAILED,
    /** Cancelled by the user. */
    CANCELED,
    /** Stopped with the engine that ran it, to be resumed from its latest checkpoint. */
    SUSPENDED;

    /**
     * @return whether this job master's run of the job can no longer change status (FINISHED, FAILED,
     *         CANCELED, SUSPENDED); a SUSPENDED job may still be resumed by a new run
     */
    public boolean isTerminal() {
        return isGloballyTerminal() || this == SUSPENDED;
    }

    /**
     * @return whether the job itself has ended and is not to be resumed (FINISHED, FAILED, CANCELED), as
     *         Flink's {@code JobStatus.isGloballyTerminalState}
     */
    public boolean isGloballyTerminal() {
        return this == FINISHED || this == FAILED || this == CANCELED;
    }

    /** @return the statuses this one may change to (unmodifiable; empty for a terminal status) */
    public Set<JobStatus> allowedTransitions() {
        return Collections.unmodifiableSet(switch (this) {
            case CREATED -> EnumSet.of(RUNNING, RESTARTING, FAILING, CANCELLING, SUSPENDED);
            case RUNNING -> EnumSet.of(RESTARTING, FAILING, CANCELLING, FINISHED, SUSPENDED);
            case RESTARTING -> EnumSet.of(RUNNING, FAILING, CANCELLING, SUSPENDED);
            case FAILING -> EnumSet.of(FAILED);
            case CANCELLING -> EnumSet.of(CANCELED);
            case FINISHED, FAILED, CANCELED, SUSPENDED -> EnumSet.noneOf(JobStatus.class);
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
