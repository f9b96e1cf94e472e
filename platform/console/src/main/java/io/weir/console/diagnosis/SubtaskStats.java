package io.weir.console.diagnosis;

/**
 * One subtask's numbers in one completed checkpoint, as the node reports them in
 * {@code GET /jobs/:id/checkpoints/details/:cid/subtasks/:vertex} (docs/checkpoint-stats.md). Durations in ms,
 * sizes in bytes.
 *
 * @param vertex the task's vertex id (the head of its chain), not blank
 * @param index the subtask index, &gt;= 0
 * @param source whether the vertex is a source (its start delay is trigger latency, not backpressure)
 * @param startDelayMs first barrier − checkpoint creation, &gt;= 0
 * @param alignmentMs last barrier − first barrier, &gt;= 0
 * @param syncMs the synchronous snapshot part, &gt;= 0
 * @param asyncMs the asynchronous snapshot part, &gt;= 0
 * @param endToEndMs acknowledgement − checkpoint creation, &gt;= 0
 * @param stateSize state bytes written, &gt;= 0
 * @param persistedBytes in-flight bytes stored as channel state, &gt;= 0
 * @param unaligned whether this subtask took the checkpoint unaligned
 */
public record SubtaskStats(String vertex, int index, boolean source, long startDelayMs, long alignmentMs, long syncMs,
                           long asyncMs, long endToEndMs, long stateSize, long persistedBytes, boolean unaligned) {
    /** @throws IllegalArgumentException naming the field that is blank or negative */
    public SubtaskStats {
        if (vertex == null || vertex.isBlank()) {
            throw new IllegalArgumentException("subtask stats need a vertex id");
        }
        requireNonNegative("index", index, vertex);
        requireNonNegative("start_delay", startDelayMs, vertex);
        requireNonNegative("alignment", alignmentMs, vertex);
        requireNonNegative("sync", syncMs, vertex);
        requireNonNegative("async", asyncMs, vertex);
        requireNonNegative("end_to_end", endToEndMs, vertex);
        requireNonNegative("size", stateSize, vertex);
        requireNonNegative("persisted", persistedBytes, vertex);
    }

    private static void requireNonNegative(String field, long value, String vertex) {
        if (value < 0) {
            throw new IllegalArgumentException(field + " of a subtask of '" + vertex + "' must be >= 0, got " + value);
        }
    }
}
