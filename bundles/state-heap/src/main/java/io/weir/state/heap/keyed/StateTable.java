package io.weir.state.heap.keyed;

import io.weir.api.Row;

import java.util.HashMap;
import java.util.Map;

/**
 * The values of one keyed state: one {@link HashMap} of key → value per key group of the backend's
 * range, copied lazily at key-group granularity after a snapshot.
 *
 * <p>Copy-on-write: {@link #capture()} hands out the current maps (O(number of key groups)); the
 * backend then increments {@link KeyContext#epoch}. Each map remembers the epoch it was created in; the
 * first write to a key group whose map is from an older epoch replaces it with a copy, so a captured
 * map is never modified again and the snapshot's writer can read it on another thread without locks.
 * Reads never copy.
 *
 * <p>Task thread only, except the arrays returned by {@link #capture()}, whose maps are immutable from
 * then on.
 *
 * @param <V> the stored value: the value itself (value, reducing state) or a {@link Versioned} container
 */
final class StateTable<V> {
    private final KeyContext ctx;
    // Task thread only. Slots are null until the key group's first write.
    private final HashMap<Row, V>[] maps;
    // Task thread only. mapEpochs[i] = epoch in which maps[i] was created.
    private final long[] mapEpochs;

    @SuppressWarnings("unchecked")
    StateTable(KeyContext ctx, int numKeyGroups) {
        this.ctx = ctx;
        this.maps = (HashMap<Row, V>[]) new HashMap[numKeyGroups];
        this.mapEpochs = new long[numKeyGroups];
    }

    /** @return the current key's value, or null */
    V get() {
        HashMap<Row, V> m = maps[ctx.keyGroupIndex];
        return m == null ? null : m.get(ctx.key);
    }

    /** Sets the current key's value (non-null). */
    void put(V value) {
        writableMap(ctx.keyGroupIndex).put(ctx.key, value);
    }

    /** Removes the current key's value; copies nothing if there is none. */
    void remove() {
        int i = ctx.keyGroupIndex;
        HashMap<Row, V> m = maps[i];
        if (m != null && m.containsKey(ctx.key)) {
            writableMap(i).remove(ctx.key);
        }
    }

    /** @return the value of {@code key} in key group index {@code keyGroupIndex}, or null */
    V getAt(int keyGroupIndex, Row key) {
        HashMap<Row, V> m = maps[keyGroupIndex];
        return m == null ? null : m.get(key);
    }

    /** Sets (non-null) or removes (null) the value of {@code key} in key group index {@code keyGroupIndex}. */
    void setAt(int keyGroupIndex, Row key, V value) {
        if (value != null) {
            writableMap(keyGroupIndex).put(key, value);
        } else {
            HashMap<Row, V> m = maps[keyGroupIndex];
            if (m != null && m.containsKey(key)) {
                writableMap(keyGroupIndex).remove(key);
            }
        }
    }

    /** Calls {@code action} with every entry (key-group index, key, value); the action must not change the table. */
    void forEach(EntryAction<V> action) {
        for (int i = 0; i < maps.length; i++) {
            if (maps[i] != null) {
                for (Map.Entry<Row, V> e : maps[i].entrySet()) {
                    action.accept(i, e.getKey(), e.getValue());
                }
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
        writableMap(keyGroupIndex).put(key, value);
    }

    /**
     * Takes the picture: the caller must increment {@link KeyContext#epoch} before the next write.
     *
     * @return the current maps by key-group index (slots may be null); never modified afterwards
     */
    Map<Row, V>[] capture() {
        return maps.clone();
    }

    /** @return whether no key group holds an entry; O(number of key groups) */
    boolean isEmpty() {
        for (HashMap<Row, V> m : maps) {
            if (m != null && !m.isEmpty()) {
                return false;
            }
        }
        return true;
    }

    /** Drops all maps (backend closed). */
    void clear() {
        java.util.Arrays.fill(maps, null);
    }

    private HashMap<Row, V> writableMap(int i) {
        HashMap<Row, V> m = maps[i];
        if (m == null) {
            m = new HashMap<>();
        } else if (mapEpochs[i] != ctx.epoch) {
            m = new HashMap<>(m);
        } else {
            return m;
        }
        maps[i] = m;
        mapEpochs[i] = ctx.epoch;
        return m;
    }
}
