package io.weir.core.coordination;

import io.weir.core.checkpoint.CheckpointOptions;
import io.weir.core.checkpoint.TaskId;

/**
 * The coordinator's handle on one running task. Every call only enqueues a mail in the task's
 * mailbox and returns at once (PROTOCOL.md §3). Thread-safe.
 */
public interface TaskCheckpointGateway {
    /** @return the task and attempt */
    TaskId taskId();

    /** @return whether the task's chain starts with a source (sources are the only tasks triggered) */
    boolean isSource();

    /** @return whether the task is RUNNING (its mailbox loop started, not yet finished or failed) */
    boolean isRunning();

    /** Enqueues the trigger mail of a source task. */
    void triggerCheckpoint(long checkpointId, long timestamp, CheckpointOptions options);

    /** Enqueues the completion notification. */
    void notifyCheckpointComplete(long checkpointId);

    /** Enqueues the abort notification. */
    void notifyCheckpointAborted(long checkpointId);
}
