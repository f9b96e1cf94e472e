package io.weir.runtime.tasks;

import io.weir.core.checkpoint.TaskId;

/**
 * How a task reports its lifecycle to the job master. Called from the task thread, each method at
 * most once per task and only by the transition that entered the state ({@link TaskStateMachine}):
 * a task reports at most one of {@link #onFinished} and {@link #onFailed}, and neither if it was
 * cancelled. Implementations hand off quickly; an exception from {@link #onFinished} is logged and
 * does not fail the finished task.
 */
public interface TaskListener {
    /** State restored, operators open, the mailbox loop is about to start. */
    void onRunning(TaskId task);

    /** All input processed and operators finished; the task waits for the final checkpoint. */
    void onFinishedData(TaskId task);

    /** The final checkpoint was committed; the task has ended. */
    void onFinished(TaskId task);

    /** The task failed (not called for cancellation). */
    void onFailed(TaskId task, Throwable cause);
}
