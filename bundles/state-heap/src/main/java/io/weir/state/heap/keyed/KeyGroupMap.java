package io.weir.state.heap.keyed;

import io.weir.api.Row;

/**
 * The entries of one key group of one keyed state: key row → stored value, an open-addressing hash table
 * with linear probing over parallel arrays.
 *
 * <p>Why not {@link java.util.HashMap}: at 100,000 keys most lookups miss the CPU caches, and a HashMap lookup
 * chases table slot → node → key row → the key row's values → the key field (five dependent loads) before it
 * reaches the value, and a value update looked the key up a second time. Here:
 * <ul>
 * <li>keys of one integral field ({@code LONG}, {@code INT} or {@code TIMESTAMP}: {@link #integralKeys}) are
 *     compared by their {@code long} value kept in {@link #longKeys}, so a hit reads two arrays and never the
 *     stored key row (which is kept only to hand out in {@link #forEach});</li>
 * <li>other keys compare the {@code int} hash array first and touch a stored key row only when hashes match;</li>
 * <li>a slot found by {@link #find} is reused by {@link #setValueAt} without a second lookup;</li>
 * <li>a copy (copy-on-write after a snapshot, see {@link StateTable}) is a few array clones that keep every
 *     entry in its slot.</li>
 * </ul>
 * Each entry knows whether its value object was stored in the current state version ({@link KeyContext#epoch};
 * changing the object in place keeps that, {@link #storedIn}): an object stored in an earlier version may be
 * referenced by a snapshot and is copied before it is handed out for an in-place update (per-entry copy-on-write,
 * {@link StateTable#getForUpdate}). That is one bit per slot ({@link #stored}), valid for one version
 * ({@link #storedVersion}) and cleared when the map is first written in a later one: nobody needs to know in which
 * earlier version a value was stored, and a {@code long} per slot was a quarter of a 100,000-key table's bytes.
 * A slot is free when its {@link #values} element is null (stored values are never null). Removal shifts the
 * following entries of the probe run back (no tombstones), so a run never contains a free slot. Capacity is a
 * power of two, at most 13/16 full ({@link #maxSize}). With integral keys, the one key whose field is null is kept aside
 * ({@link #nullKey}).
 *
 * <p>Not thread-safe: the task thread owns a map until a snapshot captures it; from then on nobody modifies it
 * (the task thread writes to a {@link #copy()}), and the snapshot writer may read it on another thread.
 *
 * @param <V> the stored value (never null)
 */
final class KeyGroupMap<V> {
    private static final int MIN_CAPACITY = 8;
    /** {@link #find}'s answer for the integral-key map's null key. */
    static final int NULL_KEY_SLOT = -2;

    /** Whether keys are rows of one LONG, INT or TIMESTAMP field (compared through {@link #longKeys}). */
    private final boolean integralKeys;
    /** Generic keys: {@code keys[i].hashCode()}; null for integral keys. */
    private int[] hashes;
    /** Integral keys: the key field's value; null for generic keys. */
    private long[] longKeys;
    private Row[] keys;
    private Object[] values;
    /** One bit per slot: whether the object {@code values[slot]} was stored in version {@link #storedVersion}. */
    private long[] stored;
    /** The state version the bits of {@link #stored} are about; all bits are clear for any later version. */
    private long storedVersion;
    private int size;
    /** capacity - 1. */
    private int mask;
    /** Integral keys only: the key row whose field is null, and its value; null if absent. */
    private Row nullKey;
    private Object nullValue;
    private long nullVersion;

    /** @param integralKeys whether every key is a row of one LONG, INT or TIMESTAMP field */
    KeyGroupMap(boolean integralKeys) {
        this.integralKeys = integralKeys;
        allocate(MIN_CAPACITY);
    }

    private KeyGroupMap(KeyGroupMap<V> from) {
        this.integralKeys = from.integralKeys;
        this.hashes = from.hashes == null ? null : from.hashes.clone();
        this.longKeys = from.longKeys == null ? null : from.longKeys.clone();
        this.keys = from.keys.clone();
        this.values = from.values.clone();
        this.stored = from.stored.clone();
        this.storedVersion = from.storedVersion;
        this.size = from.size;
        this.mask = from.mask;
        this.nullKey = from.nullKey;
        this.nullValue = from.nullValue;
        this.nullVersion = from.nullVersion;
    }

    /** @return a copy with every entry in the same slot (so slots found in this map stay valid in the copy) */
    KeyGroupMap<V> copy() {
        return new KeyGroupMap<>(this);
    }

    /**
     * Entries a table of {@code capacity} slots may hold: 13/16 of it (7 of the smallest, 8). Linear probing over
     * 8-byte keys finds a present key within ~3 slots on average at that load, mostly in the key's cache line; a
     * lower bound (Java's 3/4) keeps more tables at twice the size. At 100,000 keys in 128 key groups (781 per group)
     * 3/4 made every table 2,048 slots, 38 % full; 13/16 makes them 1,024, 76 % full: a subtask's key and value
     * arrays take half the bytes, which throughput-100k runs at +9 % records/s (benchmarks/README.md, "Session 16").
     */
    static int maxSize(int capacity) {
        return capacity - (capacity >>> 3) - (capacity >>> 4);
    }

    /** @return the number of slots: a power of two, at least 8 */
    int capacity() {
        return mask + 1;
    }

    /** @return number of entries */
    int size() {
        return size;
    }

    /** @return whether the map has no entry */
    boolean isEmpty() {
        return size == 0;
    }

    /**
     * @param key the key row (of one LONG, INT or TIMESTAMP field if the map has integral keys)
     * @param hash {@code key.hashCode()}
     * @return the slot of {@code key}: ≥ 0, or {@link #NULL_KEY_SLOT} for the integral-key map's null key;
     *         {@code -1} if absent
     */
    int find(Row key, int hash) {
        Object[] vs = values;
        int m = mask;
        if (integralKeys) {
            if (key.isNull(0)) {
                return nullKey == null ? -1 : NULL_KEY_SLOT;
            }
            long k = key.getLong(0);
            long[] ls = longKeys;
            for (int slot = spread(hash) & m; ; slot = (slot + 1) & m) {
                if (vs[slot] == null) {
                    return -1;
                }
                if (ls[slot] == k) {
                    return slot;
                }
            }
        }
        int[] hs = hashes;
        Row[] ks = keys;
        for (int slot = spread(hash) & m; ; slot = (slot + 1) & m) {
            if (vs[slot] == null) {
                return -1;
            }
            if (hs[slot] == hash) {
                Row k = ks[slot];
                if (k == key || k.equals(key)) {
                    return slot;
                }
            }
        }
    }

    /** @return the value in {@code slot}, which {@link #find} returned */
    @SuppressWarnings("unchecked")
    V valueAt(int slot) {
        return (V) (slot == NULL_KEY_SLOT ? nullValue : values[slot]);
    }

    /**
     * @param slot a slot {@link #find} returned
     * @param version the current state version (no earlier than any version this map was written in)
     * @return whether the value in {@code slot} was stored in {@code version}, rather than in an earlier one
     */
    boolean storedIn(int slot, long version) {
        if (slot == NULL_KEY_SLOT) {
            return nullVersion == version;
        }
        return storedVersion == version && (stored[slot >>> 6] & (1L << slot)) != 0;
    }

    /**
     * Replaces the value in {@code slot} (an occupied slot {@link #find} returned).
     *
     * @param value non-null
     * @param version the current state version
     */
    void setValueAt(int slot, V value, long version) {
        if (slot == NULL_KEY_SLOT) {
            nullValue = value;
            nullVersion = version;
        } else {
            values[slot] = value;
            markStored(slot, version);
        }
    }

    /** @return the value of {@code key} (hash {@code hash}), or null */
    V get(Row key, int hash) {
        int slot = find(key, hash);
        return slot == -1 ? null : valueAt(slot);
    }

    /**
     * Adds {@code key}, which is absent ({@link #find} returned -1; a present key's value is replaced with
     * {@link #setValueAt}). Slots of other keys may move.
     *
     * @param key the key row to keep (nobody changes it afterwards)
     * @param hash {@code key.hashCode()}
     * @param value non-null
     * @param version the current state version
     */
    void insert(Row key, int hash, V value, long version) {
        if (integralKeys && key.isNull(0)) {
            nullKey = key;
            nullValue = value;
            nullVersion = version;
        } else {
            if (size + 1 > maxSize(mask + 1)) {
                rehash((mask + 1) << 1);
            }
            markStored(insertNew(key, hash, value), version);
        }
        size++;
    }

    /**
     * Removes {@code key}.
     *
     * @return whether it was present (slots of other keys may then have moved)
     */
    boolean remove(Row key, int hash) {
        int slot = find(key, hash);
        if (slot == -1) {
            return false;
        }
        size--;
        if (slot == NULL_KEY_SLOT) {
            nullKey = null;
            nullValue = null;
            return true;
        }
        // backward-shift deletion: move later entries of the run into the hole unless their home slot lies
        // cyclically in (hole, next], where the hole would be before their home
        int m = mask;
        int hole = slot;
        for (int next = (hole + 1) & m; values[next] != null; next = (next + 1) & m) {
            int home = spread(keys[next].hashCode()) & m;
            if (((next - home) & m) >= ((next - hole) & m)) {
                move(next, hole);
                hole = next;
            }
        }
        keys[hole] = null;
        values[hole] = null;
        stored[hole >>> 6] &= ~(1L << hole);
        return true;
    }

    /**
     * Calls {@code action} with every entry; the action must not change the map.
     *
     * @throws E what the action throws
     */
    <E extends Exception> void forEach(Entries<V, E> action) throws E {
        Row[] ks = keys;
        for (int slot = 0; slot < ks.length; slot++) {
            if (values[slot] != null) {
                action.accept(ks[slot], valueAt(slot));
            }
        }
        if (nullKey != null) {
            action.accept(nullKey, valueAt(NULL_KEY_SLOT));
        }
    }

    /**
     * Integral-key maps: calls {@code action} with every entry's key field, read from the {@code long} keys array
     * (the stored key rows are not touched), then {@code nullKeyAction} with the null key's entry if there is one.
     * The actions must not change the map.
     *
     * @throws E what the actions throw
     * @throws IllegalStateException if the map does not have integral keys
     */
    <E extends Exception> void forEachIntegral(LongEntries<V, E> action, Entries<V, E> nullKeyAction) throws E {
        if (!integralKeys) {
            throw new IllegalStateException("forEachIntegral on a map of generic keys: use forEach");
        }
        long[] ls = longKeys;
        Object[] vs = values;
        for (int slot = 0; slot < vs.length; slot++) {
            if (vs[slot] != null) {
                action.accept(ls[slot], valueAt(slot));
            }
        }
        if (nullKey != null) {
            nullKeyAction.accept(nullKey, valueAt(NULL_KEY_SLOT));
        }
    }

    /** What {@link #forEachIntegral} calls per entry of a non-null key. */
    @FunctionalInterface
    interface LongEntries<V, E extends Exception> {
        void accept(long key, V value) throws E;
    }

    /** What {@link #forEach} calls; {@code E} is what it may throw (e.g. an IOException while writing a snapshot). */
    @FunctionalInterface
    interface Entries<V, E extends Exception> {
        void accept(Row key, V value) throws E;
    }

    private void move(int from, int to) {
        if (integralKeys) {
            longKeys[to] = longKeys[from];
        } else {
            hashes[to] = hashes[from];
        }
        keys[to] = keys[from];
        values[to] = values[from];
        stored[to >>> 6] = (stored[to >>> 6] & ~(1L << to)) | (((stored[from >>> 6] >>> from) & 1L) << to);
    }

    /** Sets {@code slot}'s bit for {@code version}, first clearing every bit if they were about an earlier version. */
    private void markStored(int slot, long version) {
        if (storedVersion != version) {
            java.util.Arrays.fill(stored, 0L);
            storedVersion = version;
        }
        stored[slot >>> 6] |= 1L << slot;
    }

    /** Puts an absent key into the first free slot of its probe run. @return the slot (its stored bit is clear) */
    private int insertNew(Row key, int hash, Object value) {
        int m = mask;
        int slot = spread(hash) & m;
        while (values[slot] != null) {
            slot = (slot + 1) & m;
        }
        if (integralKeys) {
            longKeys[slot] = key.getLong(0);
        } else {
            hashes[slot] = hash;
        }
        keys[slot] = key;
        values[slot] = value;
        return slot;
    }

    private void allocate(int capacity) {
        if (integralKeys) {
            longKeys = new long[capacity];
        } else {
            hashes = new int[capacity];
        }
        keys = new Row[capacity];
        values = new Object[capacity];
        stored = new long[(capacity + 63) >>> 6];
        mask = capacity - 1;
    }

    private void rehash(int capacity) {
        Row[] oldKeys = keys;
        Object[] oldValues = values;
        long[] oldStored = stored;
        allocate(capacity);
        for (int i = 0; i < oldKeys.length; i++) {
            if (oldValues[i] != null) {
                int slot = insertNew(oldKeys[i], oldKeys[i].hashCode(), oldValues[i]);
                stored[slot >>> 6] |= ((oldStored[i >>> 6] >>> i) & 1L) << slot;
            }
        }
    }

    /**
     * Fibonacci hashing of the key's hash: row hashes of consecutive numeric keys are consecutive, and key groups
     * already took the murmur mix of them, so the low bits alone would cluster.
     */
    private static int spread(int hash) {
        int h = hash * 0x9E3779B9;
        return h ^ (h >>> 16);
    }

    @Override
    public String toString() {
        return "KeyGroupMap{size=" + size + ", capacity=" + capacity() + (integralKeys ? ", integral keys" : "") + "}";
    }
}
