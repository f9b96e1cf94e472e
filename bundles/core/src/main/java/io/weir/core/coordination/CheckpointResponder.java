package io.weir.core.coordination;

import io.weir.core.checkpoint.CheckpointFailureReason;
import io.weir.core.checkpoint.SubtaskCheckpointMetrics;
import io.weir.core.checkpoint.TaskId;
import io.weir.core.checkpoint.TaskStateSnapshot;

/** How tasks answer a checkpoint (PROTOCOL.md §2 "Acks", "Decline"). Thread-safe; never blocks long. */
public interface CheckpointResponder {
    /** The task's snapshot for {@code checkpointId} is written; {@code state} holds its handles. */
    void acknowledgeCheckpoint(TaskId task, long checkpointId, SubtaskCheckpointMetrics metrics, TaskStateSnapshot state);

    /** The task could not take the snapshot; the checkpoint is aborted. */
    void declineCheckpoint(TaskId task, long checkpointId, CheckpointFailureReason reason, Throwable cause);
}
