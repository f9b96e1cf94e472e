package io.weir.core.barrier;

import java.util.Objects;

/**
 * The current state of a barrier handler whose states carry their data (Flink's
 * {@code BarrierHandlerState} model, STYLE.md): each event computes the next state, and {@link #enter}
 * makes it current after checking the move against the handler's phase transition table. Shared by
 * the aligned and unaligned handlers, which live in bundles that may not depend on each other.
 *
 * <p>Task thread only: not thread-safe, owned by the handler that created it.
 *
 * @param <P> the handler's phases, the transition table
 * @param <S> the handler's states
 */
public final class HandlerStateMachine<P extends Enum<P> & HandlerStateMachine.Phase<P>, S extends HandlerStateMachine.State<P>> {
    /** A phase of a handler: one row of its transition table. */
    public interface Phase<P> {
        /** @return whether a handler may move from this phase to {@code next} */
        boolean canTransitionTo(P next);
    }

    /** A state of a handler: its phase and whatever is valid in that phase. */
    public interface State<P> {
        /** @return the phase this state is in */
        P phase();
    }

    private final String taskName;
    /** Task thread only. */
    private S current;

    /**
     * @param taskName for error messages
     * @param initial the state the handler starts in
     * @throws NullPointerException if an argument is null
     */
    public HandlerStateMachine(String taskName, S initial) {
        this.taskName = Objects.requireNonNull(taskName, "taskName");
        this.current = Objects.requireNonNull(initial, "initial");
    }

    /** @return the current state */
    public S current() {
        return current;
    }

    /**
     * Makes {@code next} the current state; staying in the current state (the same instance) is no
     * transition.
     *
     * @return {@code next}
     * @throws IllegalStateException naming the task and both phases if the move is not in the table
     */
    public <T extends S> T enter(T next) {
        if (next != current) {
            checkTransition(taskName, current.phase(), next.phase());
            current = next;
        }
        return next;
    }

    /**
     * @throws IllegalStateException naming the task and both phases if {@code from → to} is not allowed
     */
    public static <P extends Enum<P> & Phase<P>> void checkTransition(String taskName, P from, P to) {
        if (!from.canTransitionTo(to)) {
            throw new IllegalStateException(
                    "task " + taskName + ": illegal barrier handler transition " + from + " -> " + to);
        }
    }
}
