package io.weir.state.heap.keyed;

import io.weir.api.serialization.TypeSerializer;
import io.weir.api.state.ValueState;

import java.io.DataInput;
import java.io.DataOutput;
import java.io.IOException;

/**
 * {@link ValueState} on the heap: the value itself is the table entry. {@link #value()} is a read-for-update
 * ({@link StateTable#getForUpdate}): it hands out the stored object, which the caller may change in place and
 * {@link #update} back, unless a running snapshot may still reference it; then it stores and hands out the
 * serializer's {@link TypeSerializer#copy} (once per entry and snapshot; free for immutable types, whose copy is
 * the value itself). Task thread only.
 *
 * @param <T> value type
 */
final class HeapValueState<T> extends AbstractHeapState<T> implements ValueState<T> {
    private final TypeSerializer<T> serializer;

    HeapValueState(String name, TypeSerializer<T> serializer, KeyContext ctx, int numKeyGroups) {
        super(name, StateKind.VALUE, ctx, numKeyGroups);
        this.serializer = serializer;
    }

    @Override
    public T value() {
        requireKey();
        return table.getForUpdate(serializer);
    }

    @Override
    public void update(T value) {
        requireKey();
        if (value == null) {
            table.remove();
        } else {
            table.put(value);
        }
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
