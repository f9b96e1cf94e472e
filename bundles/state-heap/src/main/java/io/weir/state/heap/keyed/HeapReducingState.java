package io.weir.state.heap.keyed;

import io.weir.api.serialization.TypeSerializer;
import io.weir.api.state.ReduceFunction;
import io.weir.api.state.ReducingState;

import java.io.DataInput;
import java.io.DataOutput;
import java.io.IOException;
import java.util.Objects;

/**
 * {@link ReducingState} on the heap: stores the reduced value per key; {@link #add} replaces it with
 * {@code reduce(current, added)}. Task thread only.
 *
 * @param <T> value type
 */
final class HeapReducingState<T> extends AbstractHeapState<T> implements ReducingState<T> {
    private final ReduceFunction<T> reduceFunction;
    private final TypeSerializer<T> serializer;

    HeapReducingState(String name, ReduceFunction<T> reduceFunction, TypeSerializer<T> serializer, KeyContext ctx,
            int numKeyGroups) {
        super(name, StateKind.REDUCING, ctx, numKeyGroups);
        this.reduceFunction = reduceFunction;
        this.serializer = serializer;
    }

    @Override
    public T get() {
        requireKey();
        return table.get();
    }

    /**
     * @throws NullPointerException if {@code value} is null
     * @throws Exception whatever the reduce function throws; the state is then unchanged
     */
    @Override
    public void add(T value) throws Exception {
        requireKey();
        Objects.requireNonNull(value, () -> "null added to reducing state '" + name + "'");
        T current = table.get();
        T reduced = current == null ? value : reduceFunction.reduce(current, value);
        if (reduced == null) {
            throw new NullPointerException("reduce function of state '" + name + "' returned null");
        }
        table.put(reduced);
    }

    @Override
    public void clear() {
        requireKey();
        table.remove();
    }

    @Override
    void writeValue(T value, DataOutput out) throws IOException {
        serializer.serialize(value, out);
    }

    @Override
    T readValue(DataInput in) throws IOException {
        return serializer.deserialize(in);
    }
}
