package io.weir.state.heap.keyed;

import io.weir.api.Row;

/**
 * The current key and the snapshot epoch, shared by a keyed backend and its states.
 *
 * <p>Task thread only (every field).
 */
final class KeyContext {
    /** Current key; null before the first {@code setCurrentKey}. */
    Row key;
    /** Current key group minus the range start; -1 before the first {@code setCurrentKey}. */
    int keyGroupIndex = -1;
    /**
     * Incremented by every snapshot. A map or container created in epoch {@code e} may be changed in
     * place only while {@code epoch == e}: once a snapshot has been taken it may be referenced by that
     * snapshot and must be copied before a change (see {@link StateTable}).
     */
    long epoch;

    /** @throws IllegalStateException if no key was set yet */
    void requireKey(String stateName) {
        if (key == null) {
            throw new IllegalStateException("keyed state '" + stateName + "' used before a current key was set");
        }
    }
}
