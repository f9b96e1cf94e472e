package io.weir.state.rocksdb;

import io.weir.api.serialization.TypeSerializer;
import io.weir.api.state.ReduceFunction;
import io.weir.api.state.ReducingState;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.RocksDB;
import org.rocksdb.WriteOptions;

/**
 * {@link ReducingState} in RocksDB: {@code key group | key} → serialized reduced value (see
 * {@link SingleValueRocksState}). Task thread only.
 */
final class RocksReducingState<T> extends SingleValueRocksState<T> implements ReducingState<T> {
    private final ReduceFunction<T> reduce;

    /** @param cacheCapacity keys cached on the heap, >= 0 (0: no cache) */
    RocksReducingState(String name, ReduceFunction<T> reduce, TypeSerializer<T> serializer, ColumnFamilyHandle column,
            RocksDB db, WriteOptions wo, KeyContext ctx, String context, int cacheCapacity) {
        super(name, StateKind.REDUCING, serializer, column, db, wo, ctx, context, cacheCapacity);
        this.reduce = reduce;
    }

    @Override
    public T get() {
        return read();
    }

    @Override
    public void add(T value) throws Exception {
        T current = read();
        write(current == null ? value : reduce.reduce(current, value));
    }
}
