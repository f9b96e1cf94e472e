package io.weir.runtime.tasks;

import java.util.concurrent.atomic.AtomicReference;

/**
 * The current {@link TaskState} of one task, changed only by atomic transitions checked against
 * the table in {@link TaskState}.
 *
 * <p>Who moves the task: the task thread drives DEPLOYING → RUNNING → FINISHING → FINISHED with
 * {@link #transition} and ends it in FAILED with {@link #terminate}; any thread may end it in
 * CANCELED with {@link #terminate}. Every change is a compare-and-set, and no transition leaves a
 * terminal state, so exactly one caller moves a task into a terminal state, whatever the
 * interleaving: the winner reports it (to the job master), every loser sees {@code false}/{@code
 * null} and reports nothing.
 *
 * <p>Thread-safe; one volatile read per {@link #current()}.
 */
final class TaskStateMachine {
    private final String task;
    private final AtomicReference<TaskState> state = new AtomicReference<>(TaskState.DEPLOYING);

    /** @param task the task's name, for error messages (e.g. {@code job/map#0 (attempt 1)}) */
    TaskStateMachine(String task) {
        this.task = task;
    }

    /** @return the current state */
    TaskState current() {
        return state.get();
    }

    /**
     * Moves the task from {@code expected} to {@code to} (task thread).
     *
     * @return true if this call made the transition; false if the task already ended (a concurrent
     *         cancel won), in which case nothing changed
     * @throws IllegalStateException naming both states if the table has no {@code expected → to}, or
     *         if the task is in a live state other than {@code expected} (a lifecycle bug)
     */
    boolean transition(TaskState expected, TaskState to) {
        try {
            expected.transitionTo(to);
        } catch (IllegalStateException e) {
            throw new IllegalStateException("task " + task + ": " + e.getMessage(), e);
        }
        while (true) {
            TaskState current = state.get();
            if (current == expected) {
                if (state.compareAndSet(expected, to)) {
                    return true;
                }
            } else if (current.isTerminal()) {
                return false;
            } else {
                throw new IllegalStateException("task " + task + ": illegal task state transition " + expected + " -> " + to
                        + ": the task is in " + current + ", not " + expected);
            }
        }
    }

    /**
     * Ends the task in {@code to} (FAILED or CANCELED) from whatever live state it is in.
     *
     * @return the live state the task left, or null if it had already ended (nothing changed)
     * @throws IllegalArgumentException if {@code to} is not FAILED or CANCELED
     */
    TaskState terminate(TaskState to) {
        if (to != TaskState.FAILED && to != TaskState.CANCELED) {
            throw new IllegalArgumentException("task " + task + " can only be terminated as FAILED or CANCELED, not " + to);
        }
        while (true) {
            TaskState current = state.get();
            if (current.isTerminal()) {
                return null;
            }
            current.transitionTo(to);
            if (state.compareAndSet(current, to)) {
                return current;
            }
        }
    }

    @Override
    public String toString() {
        return task + " " + state.get();
    }
}
