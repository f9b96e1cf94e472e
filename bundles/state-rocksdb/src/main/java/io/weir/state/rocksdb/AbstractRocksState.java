package io.weir.state.rocksdb;

import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.ReadOptions;
import org.rocksdb.WriteOptions;

/**
 * A keyed state in its own column family. Subclasses implement the user-facing interface on RocksDB keys
 * {@code key group | key [| user key]} and values in the canonical serialized form of the state kind
 * (docs/state-rocksdb.md), so a snapshot copies bytes without deserializing values. Task thread only.
 */
abstract class AbstractRocksState {
    final String name;
    final StateKind kind;
    final ColumnFamilyHandle column;
    final RocksDB db;
    final WriteOptions writeOptions;
    final KeyContext ctx;
    /** Reused for every point read (no snapshot). */
    final ReadOptions readOptions;
    private final String context;

    AbstractRocksState(String name, StateKind kind, ColumnFamilyHandle column, RocksDB db, WriteOptions writeOptions,
            KeyContext ctx, String context) {
        this.name = name;
        this.kind = kind;
        this.column = column;
        this.db = db;
        this.writeOptions = writeOptions;
        this.ctx = ctx;
        this.context = context;
        this.readOptions = ctx.readOptions;
    }

    /**
     * Reads the value of {@code key} into {@code ctx.scratch.value} (grown if needed).
     *
     * @return its length, or -1 if there is none
     */
    int getIntoScratch(byte[] key) {
        ScratchBuffers scratch = ctx.scratch;
        try {
            int n = db.get(column, readOptions, key, 0, key.length, scratch.value, 0, scratch.value.length);
            if (n > scratch.value.length) {
                scratch.value = new byte[Math.max(n, scratch.value.length * 2)];
                n = db.get(column, readOptions, key, 0, key.length, scratch.value, 0, scratch.value.length);
            }
            return n == RocksDB.NOT_FOUND ? -1 : n;
        } catch (RocksDBException e) {
            throw failure("read", e);
        }
    }

    /** Writes {@code value.buffer()[0, value.size())} as the value of {@code key}. */
    void put(byte[] key, ScratchBuffers.Output value) {
        ctx.beforeWrite();
        try {
            db.put(column, writeOptions, key, 0, key.length, value.buffer(), 0, value.size());
        } catch (RocksDBException e) {
            throw failure("write", e);
        }
    }

    byte[] get(byte[] key) {
        try {
            return db.get(column, key);
        } catch (RocksDBException e) {
            throw failure("read", e);
        }
    }

    void put(byte[] key, byte[] value) {
        ctx.beforeWrite();
        try {
            db.put(column, writeOptions, key, value);
        } catch (RocksDBException e) {
            throw failure("write", e);
        }
    }

    void delete(byte[] key) {
        ctx.beforeWrite();
        try {
            db.delete(column, writeOptions, key);
        } catch (RocksDBException e) {
            throw failure("delete from", e);
        }
    }

    /**
     * Takes what this state holds on the heap only (a write-back cache's dirty values), to be written to RocksDB
     * before the snapshot being taken reads it; called in the synchronous part of every snapshot. The default
     * holds nothing.
     *
     * @return the values to write, or null if none
     */
    WriteBackCache.PendingWrites<?> detachCache() {
        return null;
    }

    /**
     * Copies what this state holds on the heap only (a write-back cache's dirty values), leaving it there: what a
     * delta snapshot carries ({@link WriteBackCache#copyDirty}). The default holds nothing.
     *
     * @return the values, or null if none
     */
    WriteBackCache.PendingWrites<?> copyCache() {
        return null;
    }

    /** @return how many values this state holds on the heap only (an upper bound); the default holds none */
    int cacheDirtyCount() {
        return 0;
    }

    /** @return how many of its cached keys changed since the last snapshot; the default caches none */
    int cacheChangedSinceSnapshot() {
        return 0;
    }

    IllegalStateException failure(String what, RocksDBException e) {
        return new IllegalStateException("cannot " + what + " state '" + name + "' of " + context + " in RocksDB: "
                + e.getMessage(), e);
    }
}
