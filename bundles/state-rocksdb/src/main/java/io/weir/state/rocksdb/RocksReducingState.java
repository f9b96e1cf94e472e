package io.weir.state.rocksdb;

import io.weir.api.serialization.TypeSerializer;
import io.weir.api.state.ReduceFunction;
import io.weir.api.state.ReducingState;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.RocksDB;
import org.rocksdb.WriteOptions;

/** {@link ReducingState} in RocksDB: {@code key group | key} → serialized reduced value. Task thread only. */
final class RocksReducingState<T> extends AbstractRocksState implements ReducingState<T> {
    private final ReduceFunction<T> reduce;
    private final TypeSerializer<T> serializer;

    RocksReducingState(String name, ReduceFunction<T> reduce, TypeSerializer<T> serializer, ColumnFamilyHandle column,
            RocksDB db, WriteOptions wo, KeyContext ctx, String context) {
        super(name, StateKind.REDUCING, column, db, wo, ctx, context);
        this.reduce = reduce;
        this.serializer = serializer;
    }

    @Override
    public T get() {
        int n = getIntoScratch(ctx.prefix());
        return n < 0 ? null : ctx.scratch.deserialize(serializer, n, "reducing state '" + name + "'");
    }

    @Override
    public void add(T value) throws Exception {
        T current = get();
        T next = current == null ? value : reduce.reduce(current, value);
        put(ctx.prefix(), ctx.scratch.serialize(serializer, next, "reducing state '" + name + "'"));
    }

    @Override
    public void clear() {
        delete(ctx.prefix());
    }
}
