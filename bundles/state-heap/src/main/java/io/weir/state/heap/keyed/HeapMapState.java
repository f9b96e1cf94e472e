package io.weir.state.heap.keyed;

import io.weir.api.serialization.TypeSerializer;
import io.weir.api.state.MapState;

import java.io.DataInput;
import java.io.DataOutput;
import java.io.IOException;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;

/**
 * {@link MapState} on the heap: per key a {@link HashMap} of user key → value in a {@link Versioned}
 * container, changed in place while it is from the current epoch and copied once otherwise (an older
 * container may be part of a running snapshot). Removing the last entry removes the key. Null user
 * keys and values are rejected (use {@link #remove}). Task thread only.
 *
 * <p>Snapshot form of one key's value: a 4-byte entry count, then user key and value of each entry.
 *
 * @param <K> user key type
 * @param <V> value type
 */
final class HeapMapState<K, V> extends AbstractHeapState<Versioned<HashMap<K, V>>> implements MapState<K, V> {
    private final TypeSerializer<K> keySerializer;
    private final TypeSerializer<V> valueSerializer;

    HeapMapState(String name, TypeSerializer<K> keySerializer, TypeSerializer<V> valueSerializer, KeyContext ctx,
            int numKeyGroups) {
        super(name, StateKind.MAP, ctx, numKeyGroups);
        this.keySerializer = keySerializer;
        this.valueSerializer = valueSerializer;
    }

    @Override
    public V get(K key) {
        requireKey();
        Versioned<HashMap<K, V>> v = table.get();
        return v == null ? null : v.value().get(key);
    }

    /** @throws NullPointerException if {@code key} or {@code value} is null */
    @Override
    public void put(K key, V value) {
        requireKey();
        Objects.requireNonNull(key, () -> "null user key in map state '" + name + "'");
        Objects.requireNonNull(value, () -> "null value in map state '" + name + "' (use remove)");
        writable(table.get()).put(key, value);
    }

    @Override
    public void remove(K key) {
        requireKey();
        Versioned<HashMap<K, V>> v = table.get();
        if (v == null || !v.value().containsKey(key)) {
            return;
        }
        if (v.value().size() == 1) {
            table.remove();
        } else {
            writable(v).remove(key);
        }
    }

    @Override
    public boolean contains(K key) {
        requireKey();
        Versioned<HashMap<K, V>> v = table.get();
        return v != null && v.value().containsKey(key);
    }

    @Override
    public Map<K, V> entries() {
        requireKey();
        Versioned<HashMap<K, V>> v = table.get();
        return v == null ? new HashMap<>() : new HashMap<>(v.value());
    }

    @Override
    public void clear() {
        requireKey();
        table.remove();
    }

    /** @return the current key's map, safe to change in place (copied or created if needed) */
    private HashMap<K, V> writable(Versioned<HashMap<K, V>> v) {
        if (v != null && v.epoch() == ctx.epoch) {
            return v.value();
        }
        HashMap<K, V> map = v == null ? new HashMap<>() : new HashMap<>(v.value());
        table.put(new Versioned<>(ctx.epoch, map));
        return map;
    }

    @Override
    void writeValue(Versioned<HashMap<K, V>> value, DataOutput out) throws IOException {
        HashMap<K, V> map = value.value();
        out.writeInt(map.size());
        for (Map.Entry<K, V> e : map.entrySet()) {
            keySerializer.serialize(e.getKey(), out);
            valueSerializer.serialize(e.getValue(), out);
        }
    }

    @Override
    Versioned<HashMap<K, V>> readValue(DataInput in) throws IOException {
        int n = in.readInt();
        if (n < 0) {
            throw new IOException("negative entry count " + n + " in map state '" + name + "'");
        }
        HashMap<K, V> map = new HashMap<>(Math.max(4, n * 4 / 3 + 1));
        for (int i = 0; i < n; i++) {
            map.put(keySerializer.deserialize(in), valueSerializer.deserialize(in));
        }
        return new Versioned<>(ctx.epoch, map);
    }
}
