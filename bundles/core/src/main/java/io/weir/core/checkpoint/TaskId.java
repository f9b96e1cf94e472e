package io.weir.core.checkpoint;

/**
 * Identifies one execution attempt of one subtask of a task (chain).
 *
 * @param vertexId id of the chain's head operator
 * @param subtaskIndex 0-based subtask index
 * @param attempt execution attempt, incremented on every restart; acks of old attempts are ignored
 */
public record TaskId(String vertexId, int subtaskIndex, int attempt) {
    @Override
    public String toString() {
        return vertexId + "#" + subtaskIndex + " (attempt " + attempt + ")";
    }
}
