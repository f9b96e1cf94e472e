package io.weir.api.state;

import io.weir.api.serialization.TypeSerializer;

/**
 * Non-keyed state of one operator subtask, e.g. a source's read offsets. On a restore with another
 * parallelism, the elements of a list state are split round-robin over the new subtasks, and every
 * subtask gets all elements of a union list state (of every old subtask; also with unchanged
 * parallelism). A name is either a list state or a union list state, not both.
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

    /**
     * Returns the named union list state, creating it on first use; after a restore it holds the
     * elements checkpointed by all subtasks, in subtask order (each subtask writes what it wants
     * restored everywhere, e.g. its own part; every subtask then sees the whole).
     *
     * @param name state name, unique in the operator
     * @param serializer element serializer
     * @throws IllegalStateException if the name was registered with another serializer instance or
     *         as a (non-union) list state
     */
    <T> ListState<T> getUnionListState(String name, TypeSerializer<T> serializer);
}
