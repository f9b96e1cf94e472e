package io.weir.core.checkpoint;

import java.util.List;

/**
 * Everything one operator subtask checkpointed.
 *
 * @param operatorState operator state handles (at most one per subtask in practice)
 * @param keyedState keyed state handles
 */
public record OperatorSubtaskState(List<OperatorStateHandle> operatorState, List<KeyGroupsStateHandle> keyedState) {
    public OperatorSubtaskState {
        operatorState = List.copyOf(operatorState);
        keyedState = List.copyOf(keyedState);
    }

    /** @return an empty state (stateless operator) */
    public static OperatorSubtaskState empty() {
        return new OperatorSubtaskState(List.of(), List.of());
    }

    /** @return the total bytes of all handles */
    public long stateSize() {
        long size = 0;
        for (OperatorStateHandle h : operatorState) {
            size += h.delegate().size();
        }
        for (KeyGroupsStateHandle h : keyedState) {
            size += h.delegate().size();
        }
        return size;
    }
}
