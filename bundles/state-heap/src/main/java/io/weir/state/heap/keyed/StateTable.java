package io.weir.state.heap.keyed;

import io.weir.api.Row;


/**
 * The values of one keyed state: one {@link KeyGroupMap} of key → value per key group of the backend's
 * range, copied lazily at key-group granularity after a snapshot.
 *
 * <p>Copy-on-write: {@link #capture()} hands out the current maps (O(number of key groups)); the
 * backend then increments {@link KeyContext#epoch}. Each map remembers the epoch it was created in; the
 * first write to a key group whose map is from an older epoch replaces it with a copy, so a captured
 * map is never modified again and the snapshot's writer can read it on another thread without locks.
 * Reads never copy.
 *
 * <p>One lookup per read-modify-write: {@link #get()} remembers where it found the current key, and a
 * {@link #put} for the same current key (the same key row object, as set by {@code setCurrentKey}) writes
 * into that slot. A copy keeps every entry in its slot, so the remembered slot survives copy-on-write; any
 * insert or removal forgets it.
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
    // Task thread only: the key row object of the last get() that found its key, else null ...
    private Row foundKey;
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
        foundKey = key;
        foundKeyGroupIndex = i;
        foundSlot = slot;
        return m.valueAt(slot);
    }

    /** Sets the current key's value (non-null). */
    void put(V value) {
        Row key = ctx.key;
        int i = ctx.keyGroupIndex;
        if (key == foundKey && i == foundKeyGroupIndex) {
            writableMap(i).setValueAt(foundSlot, value);
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

    /** Sets (non-null) or removes (null) the value of {@code key} in key group index {@code keyGroupIndex}. */
    void setAt(int keyGroupIndex, Row key, V value) {
        int hash = key.hashCode();
        if (value != null) {
            if (writableMap(keyGroupIndex).put(key, hash, value)) {
                foundKey = null;
            }
        } else {
            KeyGroupMap<V> m = maps[keyGroupIndex];
            if (m != null && m.find(key, hash) != -1) {
                writableMap(keyGroupIndex).remove(key, hash);
                foundKey = null;
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
     * Takes the picture: the caller must increment {@link KeyContext#epoch} before the next write.
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
        foundKey = null;
    }

    private KeyGroupMap<V> writableMap(int i) {
        KeyGroupMap<V> m = maps[i];
        if (m == null) {
            m = new KeyGroupMap<>(ctx.integralKeys);
        } else if (mapEpochs[i] != ctx.epoch) {
            m = m.copy();
        } else {
            return m;
        }
        maps[i] = m;
        mapEpochs[i] = ctx.epoch;
        return m;
    }
}
