package io.weir.state.heap.keyed;

import io.weir.api.serialization.TypeSerializer;
import io.weir.api.state.ListState;

import java.io.DataInput;
import java.io.DataOutput;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * {@link ListState} on the heap: per key an {@link ArrayList} in a {@link Versioned} container.
 * {@link #add} appends in place (amortised O(1)) while the container is from the current epoch and
 * copies it once otherwise, since an older container may be part of a running snapshot.
 * {@link #get()} returns an immutable copy. Null elements are rejected. Task thread only.
 *
 * <p>Snapshot form of one key's value: a 4-byte element count, then each element.
 *
 * @param <T> element type
 */
final class HeapListState<T> extends AbstractHeapState<Versioned<ArrayList<T>>> implements ListState<T> {
    private final TypeSerializer<T> serializer;

    HeapListState(String name, TypeSerializer<T> serializer, KeyContext ctx, int numKeyGroups) {
        super(name, StateKind.LIST, ctx, numKeyGroups);
        this.serializer = serializer;
    }

    @Override
    public List<T> get() {
        requireKey();
        Versioned<ArrayList<T>> v = table.get();
        return v == null ? List.of() : List.copyOf(v.value());
    }

    /** @throws NullPointerException if {@code value} is null */
    @Override
    public void add(T value) {
        requireKey();
        Objects.requireNonNull(value, () -> "null added to list state '" + name + "'");
        Versioned<ArrayList<T>> v = table.get();
        if (v != null && v.epoch() == ctx.epoch) {
            v.value().add(value);
            return;
        }
        ArrayList<T> list = v == null ? new ArrayList<>(4) : new ArrayList<>(v.value());
        list.add(value);
        table.put(new Versioned<>(ctx.epoch, list));
    }

    /** @throws NullPointerException if {@code values} or one of its elements is null */
    @Override
    public void update(List<T> values) {
        requireKey();
        if (values.isEmpty()) {
            table.remove();
            return;
        }
        ArrayList<T> list = new ArrayList<>(values);
        for (T t : list) {
            Objects.requireNonNull(t, () -> "null element in update of list state '" + name + "'");
        }
        table.put(new Versioned<>(ctx.epoch, list));
    }

    @Override
    public void clear() {
        requireKey();
        table.remove();
    }

    @Override
    void writeValue(Versioned<ArrayList<T>> value, DataOutput out) throws IOException {
        ArrayList<T> list = value.value();
        out.writeInt(list.size());
        for (T t : list) {
            serializer.serialize(t, out);
        }
    }

    @Override
    Versioned<ArrayList<T>> readValue(DataInput in) throws IOException {
        int n = in.readInt();
        if (n < 0) {
            throw new IOException("negative element count " + n + " in list state '" + name + "'");
        }
        ArrayList<T> list = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            list.add(serializer.deserialize(in));
        }
        return new Versioned<>(ctx.epoch, list);
    }
}
