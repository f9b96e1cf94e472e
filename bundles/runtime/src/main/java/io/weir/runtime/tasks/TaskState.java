package io.weir.runtime.tasks;

import java.util.EnumSet;
import java.util.Set;

/**
 * Lifecycle of a task, with the transitions allowed from each state.
 *
 * <pre>
 * DEPLOYING → RUNNING → FINISHING → FINISHED
 *     │          │          │
 *     └──────────┴──────────┴──→ FAILED | CANCELED
 * </pre>
 * FINISHING: input exhausted and operators finished, still running mails and forwarding barriers
 * until the final checkpoint completes.
 */
public enum TaskState {
    DEPLOYING, RUNNING, FINISHING, FINISHED, FAILED, CANCELED;

    private Set<TaskState> next() {
        return switch (this) {
            case DEPLOYING -> EnumSet.of(RUNNING, FAILED, CANCELED);
            case RUNNING -> EnumSet.of(FINISHING, FAILED, CANCELED);
            case FINISHING -> EnumSet.of(FINISHED, FAILED, CANCELED);
            case FINISHED, FAILED, CANCELED -> EnumSet.noneOf(TaskState.class);
        };
    }

    /**
     * @return {@code to}
     * @throws IllegalStateException naming both states if the transition is not allowed
     */
    public TaskState transitionTo(TaskState to) {
        if (!next().contains(to)) {
            throw new IllegalStateException("illegal task state transition " + this + " -> " + to);
        }
        return to;
    }

    /** @return whether the task has ended */
    public boolean isTerminal() {
        return this == FINISHED || this == FAILED || this == CANCELED;
    }
}
