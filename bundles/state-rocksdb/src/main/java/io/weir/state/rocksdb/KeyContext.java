package io.weir.state.rocksdb;

import io.weir.api.Row;

/**
 * The current key of a RocksDB keyed backend, shared by its states: the key row, its key group and its
 * RocksDB prefix {@code key group | serialized key} (computed once per key change). Task thread only.
 */
final class KeyContext {
    Row key;
    int keyGroup;
    /** {@code key group (2 bytes) | serialized key}; null before the first key. */
    byte[] prefix;
    /** The record path's reusable buffers (for the key itself and the current state's values). */
    final ScratchBuffers scratch = new ScratchBuffers();
    /** The backend's read options for point reads (owned by its {@link RocksDBResources}). */
    final org.rocksdb.ReadOptions readOptions;

    KeyContext(org.rocksdb.ReadOptions readOptions) {
        this.readOptions = readOptions;
    }

    /** @return the current prefix */
    byte[] prefix() {
        if (prefix == null) {
            throw new IllegalStateException("no current key: keyed state is only accessible while a keyed record is processed");
        }
        return prefix;
    }
}
