package io.weir.state.rocksdb;

import io.weir.api.Row;
import io.weir.api.serialization.TypeSerializer;
import org.rocksdb.RocksDBException;
import org.rocksdb.WriteBatch;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A bounded write-back cache of one single-value state (value or reducing) in front of its column family:
 * key row → deserialized value, least recently used first out. A hit serves the value from the heap without
 * serializing the key or calling RocksDB; an update only marks the entry dirty. A dirty entry is written to
 * RocksDB when it is evicted and
 * — the values of all dirty entries at once are taken by {@link #detachDirty} in the synchronous part of a
 * snapshot and written in one {@link WriteBatch} before the RocksDB snapshot or native checkpoint is taken, so a
 * snapshot holds exactly the values as of the barrier; a delta snapshot copies them instead ({@link #copyDirty}) and
 * they stay dirty, since RocksDB still lacks them. Misses are cached too (value
 * null, clean), so an absent key costs one RocksDB read until it is evicted.
 *
 * <p>Values are kept by reference. A value may be changed in place between {@code value()} and {@code update()}
 * ({@code ValueState}'s read-modify-write): so a value a snapshot took ({@link #detachDirty}, {@link #copyDirty}),
 * which may be serialized later on another thread, is marked shared, and the next {@link #get} of its key replaces
 * it with the serializer's {@code copy} before handing it out (free for immutable types, whose copy is the value).
 *
 * <p>Task thread only.
 *
 * @param <T> the value type
 */
final class WriteBackCache<T> {
    /** One cached key: its RocksDB key, its value (null: none), and whether RocksDB has an older value. */
    private static final class Entry<T> {
        final byte[] rocksKey;
        T value;
        boolean dirty;
        /** The snapshot epoch of this entry's last change (-1: none). */
        int changedIn = -1;
        /** Whether {@link #value} was taken by a snapshot's {@link PendingWrites} (copy before handing it out). */
        boolean shared;

        Entry(byte[] rocksKey, T value) {
            this.rocksKey = rocksKey;
            this.value = value;
        }
    }

    private final AbstractRocksState state;
    private final TypeSerializer<T> serializer;
    private final String what;
    private final int capacity;
    // Task thread only. Access order: the eldest is the least recently used.
    private final LinkedHashMap<Row, Entry<T>> entries;
    // Task thread only. Entries marked dirty since the last detachDirty (an evicted one is written and marked clean):
    // the values RocksDB lacks.
    private final List<Entry<T>> dirty = new ArrayList<>();
    // Task thread only. Snapshots taken so far (detachDirty or copyDirty calls).
    private int epoch;
    // Task thread only. Entries changed since the last snapshot.
    private int changedInEpoch;

    /**
     * @param state the state whose column family backs the cache
     * @param serializer the value serializer
     * @param capacity entries kept, >= 1
     * @throws IllegalArgumentException if {@code capacity} < 1
     */
    WriteBackCache(AbstractRocksState state, TypeSerializer<T> serializer, int capacity) {
        if (capacity < 1) {
            throw new IllegalArgumentException("state cache of '" + state.name + "' must hold >= 1 entries, got " + capacity);
        }
        this.state = state;
        this.serializer = serializer;
        this.what = state.kind.name().toLowerCase(java.util.Locale.ROOT) + " state '" + state.name + "'";
        this.capacity = capacity;
        this.entries = new LinkedHashMap<>(Math.min(capacity, 1 << 16) * 4 / 3 + 1, 0.75f, true) {
            @Override
            protected boolean removeEldestEntry(Map.Entry<Row, Entry<T>> eldest) {
                if (size() <= WriteBackCache.this.capacity) {
                    return false;
                }
                writeBack(eldest.getValue());
                return true;
            }
        };
    }

    /**
     * @return the current key's value (null: none), read from RocksDB on a miss; a value a snapshot took is copied
     *         first, so the caller may change what it gets in place
     */
    T get() {
        Entry<T> e = current();
        if (e.shared) {
            e.shared = false;
            if (e.value != null) {
                e.value = serializer.copy(e.value);
            }
        }
        return e.value;
    }

    /** Sets the current key's value (null: removes it); written to RocksDB on eviction or for the next snapshot. */
    void set(T value) {
        Entry<T> e = entries.get(state.ctx.key);
        if (e == null) {
            // no read needed: the value is replaced whatever RocksDB holds
            e = new Entry<>(state.ctx.prefix(), null);
            entries.put(state.ctx.key, e);
        }
        e.value = value;
        e.shared = false;
        if (e.changedIn != epoch) {
            e.changedIn = epoch;
            changedInEpoch++;
        }
        if (!e.dirty) {
            e.dirty = true;
            dirty.add(e);
        }
    }

    private Entry<T> current() {
        KeyContext ctx = state.ctx;
        Entry<T> e = entries.get(ctx.key);
        if (e == null) {
            ctx.beforeRead(); // RocksDB may lack values a pending snapshot has yet to write back
            byte[] rocksKey = ctx.prefix();
            int n = state.getIntoScratch(rocksKey);
            e = new Entry<>(rocksKey, n < 0 ? null : ctx.scratch.deserialize(serializer, n, what));
            entries.put(ctx.key, e);
        }
        return e;
    }

    private void writeBack(Entry<T> e) {
        if (!e.dirty) {
            return;
        }
        state.ctx.beforeWrite(); // before the serializer is used: a pending snapshot may be using it
        if (e.value == null) {
            state.delete(e.rocksKey);
        } else {
            state.put(e.rocksKey, state.ctx.scratch.serialize(serializer, e.value, what));
        }
        e.dirty = false;
    }

    /**
     * Takes the dirty entries' values as they are now and marks the entries clean (they stay cached): the values
     * to write back for a snapshot, by {@link PendingWrites#writeTo} now or later. O(dirty entries), no serialization.
     *
     * @return the values, or null if no entry is dirty
     */
    PendingWrites<T> detachDirty() {
        nextEpoch();
        if (dirty.isEmpty()) {
            return null;
        }
        byte[][] keys = new byte[dirty.size()][];
        Object[] values = new Object[dirty.size()];
        int n = 0;
        for (Entry<T> e : dirty) {
            if (e.dirty) { // else evicted and written meanwhile
                keys[n] = e.rocksKey;
                values[n] = e.value;
                e.shared = true;
                e.dirty = false;
                n++;
            }
        }
        dirty.clear();
        return n == 0 ? null : new PendingWrites<>(state, serializer, keys, values, n, what);
    }

    /**
     * Takes the dirty entries' values as they are now, leaving them dirty (RocksDB still lacks them): what a delta
     * snapshot carries on top of the last native checkpoint. O(dirty entries), no serialization; drops entries
     * evicted (written) meanwhile from the dirty list.
     *
     * @return the values, or null if no entry is dirty
     */
    PendingWrites<T> copyDirty() {
        nextEpoch();
        dirty.removeIf(e -> !e.dirty);
        if (dirty.isEmpty()) {
            return null;
        }
        byte[][] keys = new byte[dirty.size()][];
        Object[] values = new Object[dirty.size()];
        for (int i = 0; i < keys.length; i++) {
            Entry<T> e = dirty.get(i);
            keys[i] = e.rocksKey;
            values[i] = e.value;
            e.shared = true;
        }
        return new PendingWrites<>(state, serializer, keys, values, keys.length, what);
    }

    private void nextEpoch() {
        epoch++;
        changedInEpoch = 0;
    }

    /** @return how many entries may hold a value RocksDB lacks (an upper bound: evicted ones are counted until the next snapshot) */
    int dirtyCount() {
        return dirty.size();
    }

    /** @return how many entries were changed since the last snapshot ({@link #detachDirty} or {@link #copyDirty}) */
    int changedSinceSnapshot() {
        return changedInEpoch;
    }

    /**
     * Values of one state taken by {@link #detachDirty} or {@link #copyDirty}: unchanged once taken (the cache copies a
     * shared value before handing it out for an in-place update), so another thread may write them while the task
     * thread goes on.
     */
    static final class PendingWrites<T> {
        private final AbstractRocksState state;
        private final TypeSerializer<T> serializer;
        private final byte[][] keys;
        private final Object[] values;
        private final int size;
        private final String what;

        private PendingWrites(AbstractRocksState state, TypeSerializer<T> serializer, byte[][] keys, Object[] values, int size,
                String what) {
            this.state = state;
            this.serializer = serializer;
            this.keys = keys;
            this.values = values;
            this.size = size;
            this.what = what;
        }

        /** @return the state's name */
        String stateName() {
            return state.name;
        }

        /**
         * Appends this state's rows to {@code out} as the delta section of {@link IncrementalFormat} holds them,
         * serializing each value straight into it (serializers are thread-safe; {@code out} is the calling thread's).
         *
         * @throws java.io.UncheckedIOException naming the state if a value does not serialize
         */
        @SuppressWarnings("unchecked")
        void encodeDelta(ScratchBuffers.Output out) {
            try {
                io.weir.api.serialization.Serializers.writeString(state.name, out.data);
                out.data.writeInt(size);
                for (int i = 0; i < size; i++) {
                    out.data.writeInt(keys[i].length);
                    out.write(keys[i], 0, keys[i].length);
                    if (values[i] == null) {
                        out.data.writeInt(-1);
                    } else {
                        int lengthAt = out.size();
                        out.data.writeInt(0);
                        serializer.serialize((T) values[i], out.data);
                        out.setInt(lengthAt, out.size() - lengthAt - 4);
                    }
                }
            } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException("cannot serialize " + what + ": " + e.getMessage(), e);
            }
        }

        /** @return how many values (puts and deletes) */
        int size() {
            return size;
        }

        /**
         * Adds a put (or a delete, for a cleared key) per value to {@code batch}; serializes with {@code out}, a
         * buffer of the calling thread. Until this returns, the task thread does not use the serializer
         * ({@link PendingNativeCheckpoint} orders the two).
         *
         * @throws IllegalStateException naming the state if RocksDB refuses an entry
         */
        @SuppressWarnings("unchecked")
        void writeTo(WriteBatch batch, ScratchBuffers.Output out) {
            try {
                for (int i = 0; i < size; i++) {
                    if (values[i] == null) {
                        batch.delete(state.column, keys[i]);
                    } else {
                        out.reset();
                        serializer.serialize((T) values[i], out.data);
                        batch.put(state.column, keys[i], Arrays.copyOf(out.buffer(), out.size()));
                    }
                }
            } catch (RocksDBException e) {
                throw state.failure("write back the cache of", e);
            } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException("cannot serialize " + what + ": " + e.getMessage(), e);
            }
        }
    }

    /** @return how many keys are cached (tests) */
    int size() {
        return entries.size();
    }
}
