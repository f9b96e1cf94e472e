package io.weir.state.rocksdb;

import io.weir.api.Row;
import io.weir.api.serialization.TypeSerializer;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Arrays;

/**
 * The current key of a RocksDB keyed backend, shared by its states: the key row, its key group and its
 * RocksDB prefix {@code key group | serialized key}. The prefix is serialized lazily, on the first
 * {@link #prefix()} after a key change, so a record whose state is served by a {@link WriteBackCache} never
 * serializes its key. Task thread only.
 */
final class KeyContext {
    Row key;
    int keyGroup;
    /** {@code key group (2 bytes) | serialized key} of {@link #key}; null until computed for this key. */
    private byte[] prefix;
    /** The record path's reusable buffers (for the key itself and the current state's values). */
    final ScratchBuffers scratch = new ScratchBuffers();
    /** The backend's read options for point reads (owned by its {@link RocksDBResources}). */
    final org.rocksdb.ReadOptions readOptions;
    /**
     * The native checkpoint of the last incremental snapshot, until created: the task thread creates it (if the
     * asynchronous part did not yet) before it writes to the DB again ({@link #beforeWrite}). Task thread only.
     */
    PendingNativeCheckpoint pendingCheckpoint;
    /**
     * Whether the task thread may have written to the DB since the cut of the last incremental snapshot with a native
     * checkpoint (its synchronous part): while false, the DB plus the caches' dirty values is that checkpoint plus
     * those values, which a delta snapshot relies on. Set by {@link #beforeWrite}; cleared by the backend at a cut.
     * Task thread only.
     */
    boolean writtenSinceCut = true;
    private final TypeSerializer<Row> keySerializer;
    private final String context;

    /**
     * @param readOptions the backend's read options for point reads
     * @param keySerializer serializes {@link #key} into the prefix
     * @param context job, operator and subtask, for error messages
     */
    KeyContext(org.rocksdb.ReadOptions readOptions, TypeSerializer<Row> keySerializer, String context) {
        this.readOptions = readOptions;
        this.keySerializer = keySerializer;
        this.context = context;
    }

    /**
     * Called on the task thread before every write to the DB (and before a serializer a pending snapshot may use):
     * creates the pending native checkpoint, if any, after writing the cache values it took, so that the write
     * cannot reach it. A failure is left to the asynchronous part, which rethrows it.
     */
    void beforeWrite() {
        createPendingCheckpoint();
        writtenSinceCut = true;
    }

    /**
     * Creates the pending native checkpoint, if any (after writing the cache values it took); a failure is left to
     * the asynchronous part. Unlike {@link #beforeWrite} this does not count as a write to the DB.
     */
    void createPendingCheckpoint() {
        PendingNativeCheckpoint pending = pendingCheckpoint;
        if (pending != null) {
            pendingCheckpoint = null;
            try {
                pending.create("task");
            } catch (IOException e) {
                // the snapshot's asynchronous part fails with the same exception; the task goes on
            }
        }
    }

    /**
     * Called on the task thread before a read that a write-back cache's values may be missing from: writes the
     * values the pending snapshot took from the caches, if not yet done. A failure is left to the asynchronous part.
     */
    void beforeRead() {
        PendingNativeCheckpoint pending = pendingCheckpoint;
        if (pending != null) {
            try {
                pending.writeBack("task");
            } catch (IOException e) {
                // the snapshot's asynchronous part fails with the same exception; the task goes on
            }
        }
    }

    /** Makes {@code key} (in {@code keyGroup}) current; its prefix is computed when first asked for. */
    void set(Row key, int keyGroup) {
        if (key != this.key || keyGroup != this.keyGroup) {
            this.key = key;
            this.keyGroup = keyGroup;
            this.prefix = null;
        }
    }

    /**
     * @return the current prefix; a fresh array per key, never modified afterwards (callers may keep it)
     * @throws IllegalStateException if no key was set
     * @throws UncheckedIOException naming the key if it does not serialize
     */
    byte[] prefix() {
        if (prefix == null) {
            if (key == null) {
                throw new IllegalStateException("no current key: keyed state is only accessible while a keyed record is processed");
            }
            ScratchBuffers.Output out = scratch.out;
            out.reset();
            out.write(keyGroup >>> 8);
            out.write(keyGroup);
            try {
                keySerializer.serialize(key, out.data);
            } catch (IOException e) {
                throw new UncheckedIOException("cannot serialize key " + key + " of " + context + ": " + e.getMessage(), e);
            }
            prefix = Arrays.copyOf(out.buffer(), out.size());
        }
        return prefix;
    }
}
