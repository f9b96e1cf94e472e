package io.weir.state.rocksdb;

import io.weir.api.serialization.TypeSerializer;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.RocksDB;
import org.rocksdb.WriteOptions;

/**
 * A state with one value per key ({@code key group | key} → serialized value): value and reducing state. Reads and
 * writes go through a {@link WriteBackCache} unless its capacity is 0, then straight to RocksDB. Task thread only.
 *
 * @param <T> the value type
 */
abstract class SingleValueRocksState<T> extends AbstractRocksState {
    private final TypeSerializer<T> serializer;
    /** Null when the cache is off (capacity 0): every call reads or writes RocksDB. */
    private final WriteBackCache<T> cache;
    private final String what;

    /** @param cacheCapacity keys cached on the heap, >= 0 (0: no cache) */
    SingleValueRocksState(String name, StateKind kind, TypeSerializer<T> serializer, ColumnFamilyHandle column, RocksDB db,
            WriteOptions wo, KeyContext ctx, String context, int cacheCapacity) {
        super(name, kind, column, db, wo, ctx, context);
        this.serializer = serializer;
        this.cache = cacheCapacity > 0 ? new WriteBackCache<>(this, serializer, cacheCapacity) : null;
        this.what = kind.name().toLowerCase(java.util.Locale.ROOT) + " state '" + name + "'";
    }

    /** @return the current key's value, or null if none */
    final T read() {
        if (cache != null) {
            return cache.get();
        }
        int n = getIntoScratch(ctx.prefix());
        return n < 0 ? null : ctx.scratch.deserialize(serializer, n, what);
    }

    /** Sets the current key's value; null removes it. */
    final void write(T value) {
        if (cache != null) {
            cache.set(value);
        } else if (value == null) {
            delete(ctx.prefix());
        } else {
            put(ctx.prefix(), ctx.scratch.serialize(serializer, value, what));
        }
    }

    /** Removes the current key's value. */
    public final void clear() {
        write(null);
    }

    @Override
    final WriteBackCache.PendingWrites<?> detachCache() {
        return cache == null ? null : cache.detachDirty();
    }

    @Override
    final WriteBackCache.PendingWrites<?> copyCache() {
        return cache == null ? null : cache.copyDirty();
    }

    @Override
    final int cacheDirtyCount() {
        return cache == null ? 0 : cache.dirtyCount();
    }

    @Override
    final int cacheChangedSinceSnapshot() {
        return cache == null ? 0 : cache.changedSinceSnapshot();
    }
}
