package io.weir.api.state;

import io.weir.api.serialization.TypeSerializer;

/**
 * Non-keyed state of one operator subtask, e.g. a source's read offsets. List state is
 * redistributed round-robin when parallelism changes (PROTOCOL.md §7).
 *
 * <p>Task thread only.
 */
public interface OperatorStateStore {
    /**
     * Returns the named list state, creating it on first use; after a restore it holds the elements
     * checkpointed by this subtask.
     *
     * @param name state name, unique in the operator
     * @param serializer element serializer
     * @throws IllegalStateException if the name was registered with another serializer instance
     */
    <T> ListState<T> getListState(String name, TypeSerializer<T> serializer);
}
