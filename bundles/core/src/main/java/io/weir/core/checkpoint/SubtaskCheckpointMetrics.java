package io.weir.core.checkpoint;

/**
 * What a subtask measured for one checkpoint (PROTOCOL.md §5 definitions).
 *
 * @param ackTimestamp when the subtask acknowledged, ms since the epoch
 * @param startDelayMs first barrier arrival (or trigger, for sources) − checkpoint creation time
 * @param alignmentDurationMs last barrier arrival − first barrier arrival
 * @param syncDurationMs the synchronous snapshot part on the task thread
 * @param asyncDurationMs the asynchronous part on the AsyncOperations pool
 * @param checkpointedSizeBytes bytes of state this subtask wrote
 * @param persistedDataBytes in-flight data persisted as channel state (unaligned; 0 if aligned)
 * @param processedDataDuringAlignmentBytes bytes processed between first and last barrier
 * @param unaligned whether this subtask took the checkpoint unaligned
 */
public record SubtaskCheckpointMetrics(long ackTimestamp, long startDelayMs, long alignmentDurationMs,
        long syncDurationMs, long asyncDurationMs, long checkpointedSizeBytes, long persistedDataBytes,
        long processedDataDuringAlignmentBytes, boolean unaligned) {
}
