package io.weir.state.rocksdb;

import io.weir.api.serialization.TypeSerializer;
import io.weir.api.state.ValueState;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.RocksDB;
import org.rocksdb.WriteOptions;

/** {@link ValueState} in RocksDB: {@code key group | key} → serialized value. Task thread only. */
final class RocksValueState<T> extends AbstractRocksState implements ValueState<T> {
    private final TypeSerializer<T> serializer;

    RocksValueState(String name, TypeSerializer<T> serializer, ColumnFamilyHandle column, RocksDB db, WriteOptions wo,
            KeyContext ctx, String context) {
        super(name, StateKind.VALUE, column, db, wo, ctx, context);
        this.serializer = serializer;
    }

    @Override
    public T value() {
        int n = getIntoScratch(ctx.prefix());
        return n < 0 ? null : ctx.scratch.deserialize(serializer, n, "value state '" + name + "'");
    }

    @Override
    public void update(T value) {
        if (value == null) {
            clear();
        } else {
            put(ctx.prefix(), ctx.scratch.serialize(serializer, value, "value state '" + name + "'"));
        }
    }

    @Override
    public void clear() {
        delete(ctx.prefix());
    }
}
