package io.weir.state.rocksdb;

import io.weir.api.serialization.TypeSerializer;
import io.weir.api.state.ValueState;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.RocksDB;
import org.rocksdb.WriteOptions;

/** {@link ValueState} in RocksDB: {@code key group | key} → serialized value (see {@link SingleValueRocksState}). Task thread only. */
final class RocksValueState<T> extends SingleValueRocksState<T> implements ValueState<T> {

    /** @param cacheCapacity keys cached on the heap, >= 0 (0: no cache) */
    RocksValueState(String name, TypeSerializer<T> serializer, ColumnFamilyHandle column, RocksDB db, WriteOptions wo,
            KeyContext ctx, String context, int cacheCapacity) {
        super(name, StateKind.VALUE, serializer, column, db, wo, ctx, context, cacheCapacity);
    }

    @Override
    public T value() {
        return read();
    }

    @Override
    public void update(T value) {
        write(value);
    }
}
