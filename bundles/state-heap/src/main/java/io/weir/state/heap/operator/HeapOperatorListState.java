package io.weir.state.heap.operator;

import io.weir.api.serialization.TypeSerializer;
import io.weir.api.state.ListState;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * One named operator list state: a plain {@link ArrayList}; snapshots copy it (operator state is
 * small: offsets, splits, pending transactions). Null elements are rejected.
 *
 * <p>Task thread only.
 *
 * @param <T> element type
 */
final class HeapOperatorListState<T> implements ListState<T> {
    final String name;
    /** The state's key in snapshots: the name, or {@link io.weir.core.checkpoint.OperatorStateHandle#unionKey} of it. */
    final String key;
    final TypeSerializer<T> serializer;
    // Task thread only.
    private final ArrayList<T> elements = new ArrayList<>();

    HeapOperatorListState(String name, String key, TypeSerializer<T> serializer) {
        this.name = name;
        this.key = key;
        this.serializer = serializer;
    }

    @Override
    public List<T> get() {
        return List.copyOf(elements);
    }

    /** @throws NullPointerException if {@code value} is null */
    @Override
    public void add(T value) {
        elements.add(Objects.requireNonNull(value, () -> "null added to operator list state '" + name + "'"));
    }

    /** @throws NullPointerException if {@code values} or an element is null */
    @Override
    public void update(List<T> values) {
        List<T> copy = List.copyOf(values);
        elements.clear();
        elements.addAll(copy);
    }

    @Override
    public void clear() {
        elements.clear();
    }

    /** @return a copy of the elements, for a snapshot */
    List<T> copy() {
        return new ArrayList<>(elements);
    }

    boolean isEmpty() {
        return elements.isEmpty();
    }
}
