package io.weir.core.checkpoint;

import java.util.List;

/**
 * Everything one operator subtask checkpointed. In-flight data of an unaligned checkpoint is
 * attached like Flink does: input channel state to the chain's head operator, result subpartition
 * state to its tail.
 *
 * @param operatorState operator state handles (at most one per subtask in practice)
 * @param keyedState keyed state handles
 * @param inputChannelState in-flight input buffers per input channel (head operator only)
 * @param resultSubpartitionState in-flight output buffers per subpartition (tail operator only)
 */
public record OperatorSubtaskState(List<OperatorStateHandle> operatorState, List<KeyGroupsStateHandle> keyedState,
        List<ChannelStateHandle> inputChannelState, List<ChannelStateHandle> resultSubpartitionState) {
    public OperatorSubtaskState {
        operatorState = List.copyOf(operatorState);
        keyedState = List.copyOf(keyedState);
        inputChannelState = List.copyOf(inputChannelState);
        resultSubpartitionState = List.copyOf(resultSubpartitionState);
    }

    /** State without channel state (aligned checkpoints). */
    public OperatorSubtaskState(List<OperatorStateHandle> operatorState, List<KeyGroupsStateHandle> keyedState) {
        this(operatorState, keyedState, List.of(), List.of());
    }

    /** @return an empty state (stateless operator) */
    public static OperatorSubtaskState empty() {
        return new OperatorSubtaskState(List.of(), List.of());
    }

    /** @return bytes of persisted in-flight record data (input and output channel state) */
    public long persistedDataBytes() {
        long n = 0;
        for (ChannelStateHandle h : inputChannelState) {
            n += h.dataBytes();
        }
        for (ChannelStateHandle h : resultSubpartitionState) {
            n += h.dataBytes();
        }
        return n;
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
        for (ChannelStateHandle h : inputChannelState) {
            size += h.delegate().size();
        }
        for (ChannelStateHandle h : resultSubpartitionState) {
            size += h.delegate().size();
        }
        return size;
    }
}
