package io.weir.core.state;

import io.weir.api.state.OperatorStateStore;
import io.weir.core.checkpoint.OperatorStateHandle;
import io.weir.core.storage.CheckpointStreamFactory;

/**
 * Operator (non-keyed) list state of one operator subtask. Task thread only, except the returned
 * {@link AsyncSnapshot}, which must see the state as it was when {@link #snapshot} returned.
 */
public interface OperatorStateBackend extends OperatorStateStore, AutoCloseable {
    /**
     * The synchronous part of a snapshot.
     *
     * @return the asynchronous part, producing the handle (null if there is no state)
     */
    AsyncSnapshot<OperatorStateHandle> snapshot(long checkpointId, CheckpointStreamFactory streams) throws Exception;

    @Override
    void close();
}
