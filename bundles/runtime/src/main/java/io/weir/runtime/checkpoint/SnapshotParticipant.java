package io.weir.runtime.checkpoint;

import io.weir.api.operator.CheckpointListener;
import io.weir.core.state.KeyedStateBackend;
import io.weir.core.state.OperatorStateBackend;

/**
 * One operator of a task's chain as the checkpoint sees it: its user snapshot hook, its state
 * backends and its checkpoint listener.
 *
 * @param operatorId operator id
 * @param userSnapshot the operator's {@code snapshotState(checkpointId)} (writes into its state stores)
 * @param operatorState its operator state backend
 * @param keyedState its keyed state backend, or null
 * @param listener told about completed and aborted checkpoints
 */
public record SnapshotParticipant(String operatorId, UserSnapshot userSnapshot, OperatorStateBackend operatorState,
        KeyedStateBackend keyedState, CheckpointListener listener) {

    /** The synchronous user part of a snapshot. */
    @FunctionalInterface
    public interface UserSnapshot {
        /** Writes the operator's in-memory data into its state stores for {@code checkpointId}. */
        void snapshotState(long checkpointId) throws Exception;
    }
}
