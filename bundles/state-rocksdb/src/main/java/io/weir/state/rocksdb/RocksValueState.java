package io.weir.state.rocksdb;

import io.weir.api.serialization.TypeSerializer;
import io.weir.api.state.ValueState;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.RocksDB;
import org.rocksdb.WriteOptions;

/**
 * {@link ValueState} in RocksDB: {@code key group | key} → serialized value, behind a {@link WriteBackCache}
 * unless its capacity is 0. Task thread only.
 */
final class RocksValueState<T> extends AbstractRocksState implements ValueState<T> {
    private final TypeSerializer<T> serializer;
    /** Null when the cache is off (capacity 0): every call reads or writes RocksDB. */
    private final WriteBackCache<T> cache;

    /** @param cacheCapacity keys cached on the heap, >= 0 (0: no cache) */
    RocksValueState(String name, TypeSerializer<T> serializer, ColumnFamilyHandle column, RocksDB db, WriteOptions wo,
            KeyContext ctx, String context, int cacheCapacity) {
        super(name, StateKind.VALUE, column, db, wo, ctx, context);
        this.serializer = serializer;
        this.cache = cacheCapacity > 0 ? new WriteBackCache<>(this, serializer, cacheCapacity) : null;
    }

    @Override
    public T value() {
        if (cache != null) {
            return cache.get();
        }
        int n = getIntoScratch(ctx.prefix());
        return n < 0 ? null : ctx.scratch.deserialize(serializer, n, "value state '" + name + "'");
    }

    @Override
    public void update(T value) {
        if (cache != null) {
            cache.set(value);
        } else if (value == null) {
            clear();
        } else {
            put(ctx.prefix(), ctx.scratch.serialize(serializer, value, "value state '" + name + "'"));
        }
    }

    @Override
    public void clear() {
        if (cache != null) {
            cache.set(null);
        } else {
            delete(ctx.prefix());
        }
    }

    @Override
    WriteBackCache.PendingWrites<?> detachCache() {
        return cache == null ? null : cache.detachDirty();
    }
}
