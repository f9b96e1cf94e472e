package io.weir.state.heap.keyed;

/**
 * Constants of the heap backend's keyed-state snapshot stream (documented in
 * docs/checkpoint-format.md, "Heap keyed state"):
 * <pre>
 * header      magic int 0x57484B53 ("WHKS") | version int
 * key group*  (in range order; KeyGroupsStateHandle.offsets point here)
 *             key group int | state count int |
 *             state*: name (int length + UTF-8) | kind byte | entry count int | byte length int |
 *                     entries: key (key serializer) + value (state's serializer form)
 * </pre>
 * Only states with at least one entry in the key group are written. The byte length lets a restore
 * keep a state's bytes until the operator registers the state and thereby supplies its serializers.
 */
final class KeyedSnapshotFormat {
    /** ASCII "WHKS": Weir Heap Keyed State. */
    static final int MAGIC = 0x57484B53;
    /** The version written, and the newest read. */
    static final int VERSION = 1;

    private KeyedSnapshotFormat() {
    }
}
