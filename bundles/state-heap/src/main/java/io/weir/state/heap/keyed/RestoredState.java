package io.weir.state.heap.keyed;

import java.util.Objects;

/**
 * The serialized entries of one keyed state read from a snapshot, kept until the operator registers
 * the state (only then are its serializers known), or written unchanged into the next snapshot if it
 * never does. Per key-group index: the entry count and the entry bytes.
 *
 * <p>Filled on the task thread during restore; immutable afterwards (the arrays are never changed
 * once the backend is constructed), so snapshots may reference it from another thread.
 */
final class RestoredState {
    final String name;
    final StateKind kind;
    final int[] entryCounts;
    final byte[][] entries;

    RestoredState(String name, StateKind kind, int numKeyGroups) {
        this.name = Objects.requireNonNull(name);
        this.kind = kind;
        this.entryCounts = new int[numKeyGroups];
        this.entries = new byte[numKeyGroups][];
    }

    /** @return whether no key group holds an entry */
    boolean isEmpty() {
        for (int c : entryCounts) {
            if (c > 0) {
                return false;
            }
        }
        return true;
    }
}
