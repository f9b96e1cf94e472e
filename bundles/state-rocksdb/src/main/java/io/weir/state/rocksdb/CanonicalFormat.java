package io.weir.state.rocksdb;

/**
 * Constants of the backend-independent keyed-state snapshot stream this backend writes and reads. It is
 * byte for byte the heap backend's format (docs/checkpoint-format.md, "Heap keyed state"), so a checkpoint
 * or savepoint of either backend restores on the other:
 * <pre>
 * header      magic int 0x57484B53 ("WHKS") | version int
 * key group*  (in range order; KeyGroupsStateHandle.offsets point here)
 *             key group int | state count int |
 *             state*: name (int length + UTF-8) | kind byte | entry count int | byte length int |
 *                     entries: key (key serializer) + value (state's serializer form)
 * </pre>
 * Value forms: value and reducing state the serialized value; list state {@code count int | elements};
 * map state {@code count int | (user key, value)*}.
 */
final class CanonicalFormat {
    /** ASCII "WHKS". */
    static final int MAGIC = 0x57484B53;
    /** The version written, and the newest read. */
    static final int VERSION = 1;

    private CanonicalFormat() {
    }
}
