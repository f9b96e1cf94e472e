package io.weir.runtime.tasks;

import java.util.Collections;
import java.util.EnumSet;
import java.util.Set;

/**
 * Lifecycle of a task, with the transitions allowed from each state (as Kafka Streams'
 * {@code KafkaStreams.State} lists them next to its diagram).
 *
 * <pre>
 * DEPLOYING ──→ RUNNING ──→ FINISHING ──→ FINISHED
 *     │            │            │
 *     └────────────┴────────────┴──→ FAILED | CANCELED
 *
 * FINISHED, FAILED, CANCELED: terminal, no transition leaves them
 * </pre>
 *
 * <ul>
 * <li>DEPLOYING: state being restored and operators opened (task thread).</li>
 * <li>RUNNING: the mailbox loop processes input.</li>
 * <li>FINISHING: input exhausted and operators finished; still runs mails and forwards barriers
 *     until the final checkpoint completes.</li>
 * <li>FINISHED: the final checkpoint completed and was delivered to every operator.</li>
 * <li>FAILED: the task thread ended with an error.</li>
 * <li>CANCELED: {@code cancel()} won against every other end (failover or job cancellation).</li>
 * </ul>
 * Who moves a task is documented on {@link TaskStateMachine}; transitions are atomic there.
 */
public enum TaskState {
    DEPLOYING, RUNNING, FINISHING, FINISHED, FAILED, CANCELED;

    /** @return the states this one may change to (unmodifiable; empty for a terminal state) */
    public Set<TaskState> allowedTransitions() {
        return Collections.unmodifiableSet(switch (this) {
            case DEPLOYING -> EnumSet.of(RUNNING, FAILED, CANCELED);
            case RUNNING -> EnumSet.of(FINISHING, FAILED, CANCELED);
            case FINISHING -> EnumSet.of(FINISHED, FAILED, CANCELED);
            case FINISHED, FAILED, CANCELED -> EnumSet.noneOf(TaskState.class);
        });
    }

    /** @return whether the table allows changing from this state to {@code to} (never to itself) */
    public boolean canTransitionTo(TaskState to) {
        return allowedTransitions().contains(to);
    }

    /**
     * Checks a transition against the table.
     *
     * @param to the new state, not null
     * @return {@code to}
     * @throws IllegalStateException naming both states if the transition is not allowed (including
     *         any transition out of a terminal state)
     */
    public TaskState transitionTo(TaskState to) {
        if (!canTransitionTo(to)) {
            throw new IllegalStateException("illegal task state transition " + this + " -> " + to
                    + (isTerminal() ? " (" + this + " is terminal)" : "; allowed from " + this + ": " + allowedTransitions()));
        }
        return to;
    }

    /** @return whether the task has ended */
    public boolean isTerminal() {
        return this == FINISHED || this == FAILED || this == CANCELED;
    }
}
