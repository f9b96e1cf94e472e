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
        byte[] bytes = get(ctx.prefix());
        return bytes == null ? null : KeyBytes.deserialize(serializer, bytes, 0, "value state '" + name + "'");
    }

    @Override
    public void update(T value) {
        if (value == null) {
            clear();
        } else {
            put(ctx.prefix(), KeyBytes.serialize(serializer, value));
        }
    }

    @Override
    public void clear() {
        delete(ctx.prefix());
    }
}
