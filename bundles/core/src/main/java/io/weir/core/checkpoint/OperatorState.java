package io.weir.core.checkpoint;

import java.util.Map;

/**
 * The state of all subtasks of one operator in a checkpoint.
 *
 * @param operatorId the operator's id in the job
 * @param parallelism subtasks when the checkpoint was taken
 * @param maxParallelism key groups
 * @param subtaskStates subtask index → its state; stateless subtasks may be absent
 */
public record OperatorState(String operatorId, int parallelism, int maxParallelism,
        Map<Integer, OperatorSubtaskState> subtaskStates) {
    public OperatorState {
        subtaskStates = Map.copyOf(subtaskStates);
    }

    /** @return the total bytes of all handles */
    public long stateSize() {
        return subtaskStates.values().stream().mapToLong(OperatorSubtaskState::stateSize).sum();
    }
}
