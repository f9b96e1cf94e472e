package io.weir.console.diagnosis;

import java.util.List;

/**
 * One finished checkpoint of a job with the per-subtask numbers of every task (empty for a failed checkpoint, whose
 * subtask data the node does not keep). Durations in ms, sizes in bytes.
 *
 * @param id the checkpoint id, &gt;= 0
 * @param completed true for COMPLETED, false for FAILED
 * @param savepoint whether it is a savepoint
 * @param endToEndMs completion − creation; -1 for a failed checkpoint
 * @param stateSize state bytes of all subtasks, &gt;= 0
 * @param persistedBytes in-flight bytes of all subtasks, &gt;= 0
 * @param failureMessage the node's {@code failure_message} of a failed checkpoint, else null
 * @param subtasks every subtask's numbers, copied
 */
public record CheckpointStats(long id, boolean completed, boolean savepoint, long endToEndMs, long stateSize, long persistedBytes,
                              String failureMessage, List<SubtaskStats> subtasks) {
    /** @throws IllegalArgumentException for a negative id or size */
    public CheckpointStats {
        if (id < 0) {
            throw new IllegalArgumentException("checkpoint id must be >= 0, got " + id);
        }
        if (stateSize < 0 || persistedBytes < 0) {
            throw new IllegalArgumentException("checkpoint " + id + ": sizes must be >= 0, got " + stateSize + " and " + persistedBytes);
        }
        subtasks = List.copyOf(subtasks);
    }
}
