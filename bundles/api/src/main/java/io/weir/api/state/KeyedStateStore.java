package io.weir.api.state;

/**
 * Gives a keyed operator its keyed state. Every state is scoped to the key of the record being
 * processed; the runtime sets that key before each {@code processElement}. State is grouped by key
 * group and snapshotted by the state backend (PROTOCOL.md §7).
 *
 * <p>Task thread only. Call from {@code initializeState} or later.
 */
public interface KeyedStateStore {
    /**
     * Returns the state the descriptor names, creating it on first use; after a restore it holds
     * the checkpointed values.
     *
     * @throws IllegalStateException if the same name was registered with another kind of state
     */
    <S> S getState(StateDescriptor<S> descriptor);
}
