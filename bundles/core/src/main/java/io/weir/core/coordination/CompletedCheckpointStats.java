package io.weir.core.coordination;

import io.weir.core.checkpoint.SubtaskCheckpointMetrics;
import io.weir.core.checkpoint.TaskId;

import java.util.Map;

/**
 * Statistics of a completed checkpoint (PROTOCOL.md §5).
 *
 * @param checkpointId the id
 * @param triggerTimestamp creation time, ms since the epoch
 * @param endToEndDurationMs completion − creation, ms
 * @param checkpointedSizeBytes state bytes written by all subtasks
 * @param persistedDataBytes in-flight bytes persisted by all subtasks (unaligned)
 * @param isFinal whether it is the final checkpoint of a bounded job
 * @param subtasks per subtask: its metrics
 * @param isSavepoint whether it is a user's savepoint ({@link CheckpointTriggerKind#SAVEPOINT})
 * @param externalPath the checkpoint's or savepoint's directory (absolute), or null where unknown
 */
public record CompletedCheckpointStats(long checkpointId, long triggerTimestamp, long endToEndDurationMs,
        long checkpointedSizeBytes, long persistedDataBytes, boolean isFinal, Map<TaskId, SubtaskCheckpointMetrics> subtasks,
        boolean isSavepoint, String externalPath) {
    public CompletedCheckpointStats {
        subtasks = Map.copyOf(subtasks);
    }

    /** A checkpoint (not a savepoint) whose directory is not known. */
    public CompletedCheckpointStats(long checkpointId, long triggerTimestamp, long endToEndDurationMs,
            long checkpointedSizeBytes, long persistedDataBytes, boolean isFinal, Map<TaskId, SubtaskCheckpointMetrics> subtasks) {
        this(checkpointId, triggerTimestamp, endToEndDurationMs, checkpointedSizeBytes, persistedDataBytes, isFinal, subtasks,
                false, null);
    }
}
