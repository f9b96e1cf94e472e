package io.weir.coordinator;

import io.weir.core.checkpoint.CheckpointException;
import io.weir.core.checkpoint.CheckpointFailureReason;
import io.weir.core.checkpoint.TaskId;
import io.weir.core.coordination.TaskCheckpointGateway;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Which tasks a checkpoint involves (PROTOCOL.md §2 "checkpoint plan").
 *
 * @param tasksToTrigger the running source tasks: the only ones that get the trigger RPC
 * @param tasksToWaitFor every task of the current attempt: the checkpoint completes when all acked
 * @param tasksToCommit every task: they get notifyCheckpointComplete / notifyCheckpointAborted
 */
record CheckpointPlan(List<TaskCheckpointGateway> tasksToTrigger, List<TaskCheckpointGateway> tasksToWaitFor,
        List<TaskCheckpointGateway> tasksToCommit) {

    /** @throws IllegalArgumentException if a task id occurs twice among the tasks to wait for */
    CheckpointPlan {
        tasksToTrigger = List.copyOf(tasksToTrigger);
        tasksToWaitFor = List.copyOf(tasksToWaitFor);
        tasksToCommit = List.copyOf(tasksToCommit);
        Set<TaskId> seen = new HashSet<>();
        for (TaskCheckpointGateway t : tasksToWaitFor) {
            if (!seen.add(t.taskId())) {
                throw new IllegalArgumentException("task " + t.taskId() + " occurs twice in the checkpoint plan");
            }
        }
    }

    /**
     * Computes the plan of the current attempt.
     *
     * @param jobName the job, for messages
     * @param tasks the tasks of the current attempt
     * @throws CheckpointException with {@link CheckpointFailureReason#NOT_ALL_REQUIRED_TASKS_RUNNING}
     *         (not counted) if any task is not running or there is no source task, naming the task
     */
    static CheckpointPlan calculate(String jobName, List<TaskCheckpointGateway> tasks) throws CheckpointException {
        List<TaskCheckpointGateway> sources = new ArrayList<>();
        for (TaskCheckpointGateway t : tasks) {
            if (!t.isRunning()) {
                throw new CheckpointException(CheckpointFailureReason.NOT_ALL_REQUIRED_TASKS_RUNNING,
                        "Task " + t.taskId() + " of job " + jobName + " is not running.", null);
            }
            if (t.isSource()) {
                sources.add(t);
            }
        }
        if (sources.isEmpty()) {
            throw new CheckpointException(CheckpointFailureReason.NOT_ALL_REQUIRED_TASKS_RUNNING,
                    "Job " + jobName + " has no running source task to trigger.", null);
        }
        return new CheckpointPlan(sources, tasks, tasks);
    }

    /** @return whether the plan waits for another execution attempt of {@code task}'s subtask */
    boolean waitsForOtherAttemptOf(TaskId task) {
        for (TaskCheckpointGateway t : tasksToWaitFor) {
            TaskId id = t.taskId();
            if (id.vertexId().equals(task.vertexId()) && id.subtaskIndex() == task.subtaskIndex()
                    && id.attempt() != task.attempt()) {
                return true;
            }
        }
        return false;
    }
}
