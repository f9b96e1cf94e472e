package io.weir.state.rocksdb;

import io.weir.api.serialization.TypeSerializer;
import io.weir.api.state.ReduceFunction;
import io.weir.api.state.ReducingState;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.RocksDB;
import org.rocksdb.WriteOptions;

/**
 * {@link ReducingState} in RocksDB: {@code key group | key} → serialized reduced value, behind a
 * {@link WriteBackCache} unless its capacity is 0. Task thread only.
 */
final class RocksReducingState<T> extends AbstractRocksState implements ReducingState<T> {
    private final ReduceFunction<T> reduce;
    private final TypeSerializer<T> serializer;
    /** Null when the cache is off (capacity 0): every call reads or writes RocksDB. */
    private final WriteBackCache<T> cache;

    /** @param cacheCapacity keys cached on the heap, >= 0 (0: no cache) */
    RocksReducingState(String name, ReduceFunction<T> reduce, TypeSerializer<T> serializer, ColumnFamilyHandle column,
            RocksDB db, WriteOptions wo, KeyContext ctx, String context, int cacheCapacity) {
        super(name, StateKind.REDUCING, column, db, wo, ctx, context);
        this.reduce = reduce;
        this.serializer = serializer;
        this.cache = cacheCapacity > 0 ? new WriteBackCache<>(this, serializer, cacheCapacity) : null;
    }

    @Override
    public T get() {
        if (cache != null) {
            return cache.get();
        }
        int n = getIntoScratch(ctx.prefix());
        return n < 0 ? null : ctx.scratch.deserialize(serializer, n, "reducing state '" + name + "'");
    }

    @Override
    public void add(T value) throws Exception {
        T current = get();
        T next = current == null ? value : reduce.reduce(current, value);
        if (cache != null) {
            cache.set(next);
        } else {
            put(ctx.prefix(), ctx.scratch.serialize(serializer, next, "reducing state '" + name + "'"));
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
