package io.weir.coordinator;

import io.weir.core.coordination.TaskCheckpointGateway;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.List;

/**
 * Tells every task of a plan that a checkpoint completed or was aborted (PROTOCOL.md §2). Each call
 * is isolated: a task that throws is logged and the others are still told. Stateless; called on the
 * checkpoint timer thread with no lock held.
 */
final class TaskNotifier {
    /** The coordinator's category, so log lines and their configuration stay as they were before the split. */
    private static final Logger LOG = LoggerFactory.getLogger(CheckpointCoordinator.class);

    private final String jobName;

    /** @param jobName the job, for log lines */
    TaskNotifier(String jobName) {
        this.jobName = jobName;
    }

    /** Calls {@code notifyCheckpointComplete(checkpointId)} on every task, in order. */
    void notifyComplete(List<TaskCheckpointGateway> tasks, long checkpointId) {
        for (TaskCheckpointGateway task : tasks) {
            try {
                task.notifyCheckpointComplete(checkpointId);
            } catch (RuntimeException e) {
                LOG.warn("Could not notify task {} that checkpoint {} of job {} completed", task.taskId(), checkpointId,
                        jobName, e);
            }
        }
    }

    /** Calls {@code notifyCheckpointAborted(checkpointId)} on every task, in order. */
    void notifyAborted(List<TaskCheckpointGateway> tasks, long checkpointId) {
        for (TaskCheckpointGateway task : tasks) {
            try {
                task.notifyCheckpointAborted(checkpointId);
            } catch (RuntimeException e) {
                LOG.warn("Could not notify task {} that checkpoint {} of job {} was aborted", task.taskId(), checkpointId,
                        jobName, e);
            }
        }
    }
}
