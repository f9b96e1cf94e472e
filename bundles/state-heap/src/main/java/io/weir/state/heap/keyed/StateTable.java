package io.weir.state.heap.keyed;

import io.weir.api.Row;
import io.weir.api.serialization.TypeSerializer;


/**
 * The values of one keyed state: one {@link KeyGroupMap} of key → value per key group of the backend's
 * range, copied lazily after a snapshot: a key group's map on its first write, a value on its first
 * read-for-update.
 *
 * <p>Copy-on-write: {@link #capture()} hands out the current maps (O(number of key groups)); the
 * backend then increments {@link KeyContext#epoch} and registers the new epoch as the snapshot's version in
 * {@link KeyContext#snapshots} until its writer finishes. Each map remembers the epoch it was created in, and
 * each entry whether its value was stored in the current epoch ({@link KeyGroupMap#storedIn}). While a snapshot runs:
 * <ul>
 * <li>the first write to a key group whose map is older than the running snapshot's version replaces the map
 *     with a copy (the values are shared, not copied), so a captured map's structure is never modified;</li>
 * <li>{@link #getForUpdate} of an entry older than that version stores and returns the serializer's
 *     {@link TypeSerializer#copy} of the value, so a value a snapshot captured is never changed in place: the
 *     writer reads exactly the values as of the snapshot, on another thread, without locks.</li>
 * </ul>
 * When no snapshot runs, maps are changed in place, and so are values already copied since the latest snapshot
 * (each changed value is copied once per snapshot: see {@link #getForUpdate}). {@link #get()} never copies (its
 * callers replace values instead of changing them).
 *
 * <p>One lookup per read-modify-write: {@link #get()} remembers where it found the current key, and a
 * {@link #put} for the same current key (the same {@code setCurrentKey} call, {@link KeyContext#keySerial}: the
 * key row itself may be one the runtime overwrites per record) writes into that slot. A copy keeps every entry in
 * its slot, so the remembered slot survives copy-on-write; any insert or removal forgets it. A new entry keeps
 * {@link KeyContext#retainedKey()}, never the current key row itself.
 *
 * <p>Task thread only, except the arrays returned by {@link #capture()}, whose maps are immutable from
 * then on.
 *
 * @param <V> the stored value: the value itself (value, reducing state) or a {@link Versioned} container
 */
final class StateTable<V> {
    private final KeyContext ctx;
    // Task thread only. Slots are null until the key group's first write.
    private final KeyGroupMap<V>[] maps;
    // Task thread only. mapEpochs[i] = epoch in which maps[i] was created.
    private final long[] mapEpochs;
    // Task thread only: the KeyContext.keySerial of the last get() that found its key, else -1 ...
    private long foundKeySerial = -1;
    // ... its key-group index and its slot in that key group's map.
    private int foundKeyGroupIndex;
    private int foundSlot;

    @SuppressWarnings("unchecked")
    StateTable(KeyContext ctx, int numKeyGroups) {
        this.ctx = ctx;
        this.maps = (KeyGroupMap<V>[]) new KeyGroupMap[numKeyGroups];
        this.mapEpochs = new long[numKeyGroups];
    }

    /** @return the current key's value, or null */
    V get() {
        int i = ctx.keyGroupIndex;
        KeyGroupMap<V> m = maps[i];
        if (m == null) {
            return null;
        }
        Row key = ctx.key;
        int slot = m.find(key, key.hashCode());
        if (slot == -1) {
            return null;
        }
        foundKeySerial = ctx.keySerial;
        foundKeyGroupIndex = i;
        foundSlot = slot;
        return m.valueAt(slot);
    }

    /**
     * Reads the current key's value for an in-place update (then {@link #put} it back): hands out the stored value
     * if it was stored in the current epoch (since the latest snapshot); else stores {@code copier.copy(value)},
     * stamped with the current epoch, in its place and hands that out. So each changed value is copied once per
     * snapshot, as list and map containers are, whether or not that snapshot still runs:
     * <ul>
     * <li>a running snapshot may reference the stored value (it was stored before the snapshot's version);</li>
     * <li>the copy is allocated by the task thread, in its own allocation buffer, so no other thread's objects share
     *     its cache lines. A value changed in place for a long time was moved by the GC, possibly next to a value or
     *     object another task thread changes as often (two subtasks' accumulators in one cache line): then every
     *     change takes the line from the other core. In {@code throughput-16} that made one run in ten run at
     *     12-15 M records/s instead of 18-20 M until a full GC moved the objects apart (benchmarks/README.md, "The
     *     slow mode at 17 M records/s, explained"); copied once per checkpoint, a value the GC placed badly is
     *     placed anew at the next checkpoint.</li>
     * </ul>
     *
     * @param copier the state's serializer, whose {@link TypeSerializer#copy} makes the copy
     * @return the current key's value, or null
     */
    V getForUpdate(TypeSerializer<V> copier) {
        V value = get();
        if (value == null) {
            return null;
        }
        if (!maps[foundKeyGroupIndex].storedIn(foundSlot, ctx.epoch)) {
            // stored before the latest snapshot: a running snapshot may hold it, and the GC may have moved it
            value = copier.copy(value);
            writableMap(foundKeyGroupIndex).setValueAt(foundSlot, value, ctx.epoch);
        }
        return value;
    }

    /**
     * Sets the current key's value (non-null). Putting back the object that is stored (changed in place after
     * {@link #getForUpdate}) writes nothing: an entry's version is when its object was stored, which decides
     * whether a snapshot may hold that object.
     */
    void put(V value) {
        Row key = ctx.key;
        int i = ctx.keyGroupIndex;
        if (foundKeySerial == ctx.keySerial && i == foundKeyGroupIndex) {
            if (maps[i].valueAt(foundSlot) != value) {
                writableMap(i).setValueAt(foundSlot, value, ctx.epoch);
            }
        } else {
            setAt(i, key, value);
        }
    }

    /** Removes the current key's value; copies nothing if there is none. */
    void remove() {
        setAt(ctx.keyGroupIndex, ctx.key, null);
    }

    /** @return the value of {@code key} in key group index {@code keyGroupIndex}, or null */
    V getAt(int keyGroupIndex, Row key) {
        KeyGroupMap<V> m = maps[keyGroupIndex];
        return m == null ? null : m.get(key, key.hashCode());
    }

    /**
     * Sets (non-null) or removes (null) the value of {@code key} in key group index {@code keyGroupIndex}. A new
     * entry of the current key row keeps {@link KeyContext#retainedKey()} instead of that row.
     */
    void setAt(int keyGroupIndex, Row key, V value) {
        int hash = key.hashCode();
        if (value != null) {
            KeyGroupMap<V> m = writableMap(keyGroupIndex);
            int slot = m.find(key, hash);
            if (slot != -1) {
                m.setValueAt(slot, value, ctx.epoch);
            } else {
                m.insert(key == ctx.key ? ctx.retainedKey() : key, hash, value, ctx.epoch);
                foundKeySerial = -1;
            }
        } else {
            KeyGroupMap<V> m = maps[keyGroupIndex];
            if (m != null && m.find(key, hash) != -1) {
                writableMap(keyGroupIndex).remove(key, hash);
                foundKeySerial = -1;
            }
        }
    }

    /** Calls {@code action} with every entry (key-group index, key, value); the action must not change the table. */
    void forEach(EntryAction<V> action) {
        for (int i = 0; i < maps.length; i++) {
            if (maps[i] != null) {
                int index = i;
                maps[i].forEach((key, value) -> action.accept(index, key, value));
            }
        }
    }

    /** What {@link #forEach} calls. */
    @FunctionalInterface
    interface EntryAction<V> {
        void accept(int keyGroupIndex, Row key, V value);
    }

    /** Adds a restored entry to key group index {@code keyGroupIndex} (restore only). */
    void putRestored(int keyGroupIndex, Row key, V value) {
        setAt(keyGroupIndex, key, value);
    }

    /**
     * Takes the picture: before the next write the caller must increment {@link KeyContext#epoch} and register
     * the new epoch in {@link KeyContext#snapshots} until the picture is written.
     *
     * @return the current maps by key-group index (slots may be null); never modified afterwards
     */
    KeyGroupMap<V>[] capture() {
        return maps.clone();
    }

    /** @return whether no key group holds an entry; O(number of key groups) */
    boolean isEmpty() {
        for (KeyGroupMap<V> m : maps) {
            if (m != null && !m.isEmpty()) {
                return false;
            }
        }
        return true;
    }

    /** Drops all maps (backend closed). */
    void clear() {
        java.util.Arrays.fill(maps, null);
        foundKeySerial = -1;
    }

    private KeyGroupMap<V> writableMap(int i) {
        KeyGroupMap<V> m = maps[i];
        if (m == null) {
            m = new KeyGroupMap<>(ctx.integralKeys);
        } else if (mapEpochs[i] < ctx.snapshots.required()) {
            // a running snapshot may hold this map
            m = m.copy();
        } else {
            return m;
        }
        maps[i] = m;
        mapEpochs[i] = ctx.epoch;
        return m;
    }
}
