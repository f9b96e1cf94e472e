package io.weir.core.checkpoint;

/**
 * What a subtask measured for one checkpoint (PROTOCOL.md §5 definitions).
 *
 * @param ackTimestamp when the subtask acknowledged, ms since the epoch
 * @param startDelayMs first barrier arrival (or trigger, for sources) − checkpoint creation time
 * @param alignmentDurationMs last barrier arrival − first barrier arrival
 * @param syncDurationMs the synchronous snapshot part on the task thread
 * @param asyncDurationMs the asynchronous part on the AsyncOperations pool
 * @param checkpointedSizeBytes bytes of state this subtask wrote for this checkpoint (Flink's
 *        {@code checkpointed_size}: with incremental checkpoints only the new files)
 * @param persistedDataBytes in-flight data persisted as channel state (unaligned; 0 if aligned)
 * @param processedDataDuringAlignmentBytes bytes processed between first and last barrier
 * @param unaligned whether this subtask took the checkpoint unaligned
 * @param stateSizeBytes bytes of the whole state the checkpoint refers to for this subtask (Flink's
 *        {@code state_size}: with incremental checkpoints also the files of earlier checkpoints it reuses)
 */
public record SubtaskCheckpointMetrics(long ackTimestamp, long startDelayMs, long alignmentDurationMs,
        long syncDurationMs, long asyncDurationMs, long checkpointedSizeBytes, long persistedDataBytes,
        long processedDataDuringAlignmentBytes, boolean unaligned, long stateSizeBytes) {

    /** Metrics of a non-incremental checkpoint: the state size is the checkpointed size. */
    public SubtaskCheckpointMetrics(long ackTimestamp, long startDelayMs, long alignmentDurationMs,
            long syncDurationMs, long asyncDurationMs, long checkpointedSizeBytes, long persistedDataBytes,
            long processedDataDuringAlignmentBytes, boolean unaligned) {
        this(ackTimestamp, startDelayMs, alignmentDurationMs, syncDurationMs, asyncDurationMs, checkpointedSizeBytes,
                persistedDataBytes, processedDataDuringAlignmentBytes, unaligned, checkpointedSizeBytes);
    }
}
