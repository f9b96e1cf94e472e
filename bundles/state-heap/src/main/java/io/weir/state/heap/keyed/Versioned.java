package io.weir.state.heap.keyed;

/**
 * A mutable per-key container (the list of a ListState, the map of a MapState) tagged with the epoch
 * it was created in. It may be changed in place only while its epoch is the current one; otherwise a
 * snapshot may hold it and it is copied first (see {@link StateTable}).
 *
 * @param epoch the {@link KeyContext#epoch} when it was created
 * @param value the container; task thread only
 * @param <C> the container type
 */
record Versioned<C>(long epoch, C value) {
}
