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

    /** @return the total bytes of all handles, with every shared file a keyed handle references (the full size) */
    public long stateSize() {
        long size = 0;
        for (OperatorStateHandle h : operatorState) {
            size += h.delegate().size();
        }
        for (KeyGroupsStateHandle h : keyedState) {
            size += h.stateSize();
        }
        for (ChannelStateHandle h : inputChannelState) {
            size += h.delegate().size();
        }
        for (ChannelStateHandle h : resultSubpartitionState) {
            size += h.delegate().size();
        }
        return size;
    }

    /**
     * @param checkpointId the checkpoint this state was written for
     * @return the bytes that checkpoint wrote: {@link #stateSize()} without the shared files that earlier
     *         checkpoints uploaded (equal to it unless keyed state is incremental)
     */
    public long checkpointedSize(long checkpointId) {
        long size = stateSize();
        for (KeyGroupsStateHandle h : keyedState) {
            size -= h.stateSize() - h.checkpointedSize(checkpointId);
        }
        return size;
    }

    /** @return every shared file the keyed state references */
    public List<SharedFileHandle> sharedFiles() {
        List<SharedFileHandle> files = new java.util.ArrayList<>();
        for (KeyGroupsStateHandle h : keyedState) {
            files.addAll(h.sharedFiles());
        }
        return files;
    }
}
