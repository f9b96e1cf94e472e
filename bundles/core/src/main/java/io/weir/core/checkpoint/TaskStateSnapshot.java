package io.weir.core.checkpoint;

import java.util.Map;

/**
 * What one task (a chain of operators, one subtask each) acknowledges for a checkpoint: the state
 * handles of each operator of its chain.
 *
 * @param subtaskStates operator id → that operator's state in this subtask
 */
public record TaskStateSnapshot(Map<String, OperatorSubtaskState> subtaskStates) {
    public TaskStateSnapshot {
        subtaskStates = Map.copyOf(subtaskStates);
    }

    /** @return the total bytes of all handles */
    public long stateSize() {
        return subtaskStates.values().stream().mapToLong(OperatorSubtaskState::stateSize).sum();
    }

    /** @return the bytes checkpoint {@code checkpointId} wrote (shared files of earlier checkpoints not counted) */
    public long checkpointedSize(long checkpointId) {
        return subtaskStates.values().stream().mapToLong(s -> s.checkpointedSize(checkpointId)).sum();
    }
}
