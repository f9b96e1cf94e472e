package io.weir.state.rocksdb;

import io.weir.api.serialization.TypeSerializer;
import io.weir.api.state.MapState;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.RocksIterator;
import org.rocksdb.WriteOptions;

import java.util.HashMap;
import java.util.Map;

/**
 * {@link MapState} in RocksDB: one RocksDB entry per user key, {@code key group | key | user key} →
 * serialized value; all entries of a key are the contiguous range with prefix {@code key group | key}, so
 * {@link #entries} is one prefix scan and {@link #clear} one {@code deleteRange}. Task thread only.
 */
final class RocksMapState<K, V> extends AbstractRocksState implements MapState<K, V> {
    private final TypeSerializer<K> keySerializer;
    private final TypeSerializer<V> valueSerializer;

    RocksMapState(String name, TypeSerializer<K> keySerializer, TypeSerializer<V> valueSerializer, ColumnFamilyHandle column,
            RocksDB db, WriteOptions wo, KeyContext ctx, String context) {
        super(name, StateKind.MAP, column, db, wo, ctx, context);
        this.keySerializer = keySerializer;
        this.valueSerializer = valueSerializer;
    }

    private byte[] rowKey(K userKey) {
        return KeyBytes.concat(ctx.prefix(), KeyBytes.serialize(keySerializer, userKey));
    }

    @Override
    public V get(K key) {
        byte[] bytes = get(rowKey(key));
        return bytes == null ? null : KeyBytes.deserialize(valueSerializer, bytes, 0, "map state '" + name + "' value");
    }

    @Override
    public void put(K key, V value) {
        put(rowKey(key), KeyBytes.serialize(valueSerializer, value));
    }

    @Override
    public void remove(K key) {
        delete(rowKey(key));
    }

    @Override
    public boolean contains(K key) {
        return get(rowKey(key)) != null;
    }

    @Override
    public Map<K, V> entries() {
        byte[] prefix = ctx.prefix();
        Map<K, V> map = new HashMap<>();
        try (RocksIterator it = db.newIterator(column)) {
            for (it.seek(prefix); it.isValid() && KeyBytes.startsWith(it.key(), prefix); it.next()) {
                map.put(KeyBytes.deserialize(keySerializer, it.key(), prefix.length, "map state '" + name + "' user key"),
                        KeyBytes.deserialize(valueSerializer, it.value(), 0, "map state '" + name + "' value"));
            }
        }
        return map;
    }

    @Override
    public void clear() {
        byte[] prefix = ctx.prefix();
        ctx.beforeWrite();
        try {
            // a key's prefix always ends in a key byte after the 2 key-group bytes; prefixEnd is never null
            db.deleteRange(column, writeOptions, prefix, KeyBytes.prefixEnd(prefix));
        } catch (RocksDBException e) {
            throw failure("clear", e);
        }
    }
}
