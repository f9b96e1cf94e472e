package io.weir.api.testing;

import io.weir.api.serialization.Serializers;
import io.weir.api.serialization.TypeSerializer;
import io.weir.api.state.ListState;
import io.weir.api.state.OperatorStateStore;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Test double of {@link OperatorStateStore}: list states kept in memory. {@link #snapshot()}
 * serializes every list state with its element serializer (as a checkpoint would), and a store
 * {@linkplain #restoredFrom restored} from such a snapshot deserializes each state when it is first
 * registered, so a test catches state that does not survive serialization.
 *
 * <p>Not thread-safe: one test thread, as the task thread in the runtime.
 */
public final class InMemoryOperatorStateStore implements OperatorStateStore {
    /** Snapshot to restore from, by state name; null for a fresh store. */
    private final Map<String, byte[]> restored;
    /** Registered states by name. Test thread only. */
    private final Map<String, InMemoryListState<?>> states = new HashMap<>();

    private InMemoryOperatorStateStore(Map<String, byte[]> restored) {
        this.restored = restored;
    }

    /** @return a store with no state, not restored */
    public static InMemoryOperatorStateStore empty() {
        return new InMemoryOperatorStateStore(null);
    }

    /**
     * @param snapshot what {@link #snapshot()} returned, by state name (copied)
     * @return a restored store whose states start with the snapshotted elements
     * @throws NullPointerException if {@code snapshot} is null
     */
    public static InMemoryOperatorStateStore restoredFrom(Map<String, byte[]> snapshot) {
        return new InMemoryOperatorStateStore(Map.copyOf(Objects.requireNonNull(snapshot, "snapshot")));
    }

    /** @return whether the store was restored from a snapshot */
    public boolean isRestored() {
        return restored != null;
    }

    /** @return every registered list state in binary form (a list of elements), by state name; a new map */
    public Map<String, byte[]> snapshot() {
        Map<String, byte[]> out = new HashMap<>();
        states.forEach((name, state) -> out.put(name, state.toBytes()));
        return out;
    }

    /**
     * Returns the named list state, creating it on first use; in a restored store it starts with
     * the snapshotted elements of that name.
     *
     * @throws java.io.UncheckedIOException if the snapshotted bytes do not deserialize
     */
    @Override
    @SuppressWarnings("unchecked")
    public <T> ListState<T> getListState(String name, TypeSerializer<T> serializer) {
        return (ListState<T>) states.computeIfAbsent(name, n -> {
            InMemoryListState<T> state = new InMemoryListState<>(serializer);
            if (restored != null && restored.containsKey(n)) {
                state.addFromBytes(restored.get(n));
            }
            return state;
        });
    }

    /**
     * A single in-memory subtask sees its own elements only, so a union list state behaves like a
     * list state here; names are shared with {@link #getListState}.
     */
    @Override
    public <T> ListState<T> getUnionListState(String name, TypeSerializer<T> serializer) {
        return getListState(name, serializer);
    }

    /** One list state: its elements in memory and the serializer of the whole list. */
    private static final class InMemoryListState<T> implements ListState<T> {
        private final TypeSerializer<List<T>> serializer;
        /** Test thread only. */
        private final List<T> values = new ArrayList<>();

        InMemoryListState(TypeSerializer<T> element) {
            this.serializer = Serializers.listOf(element);
        }

        byte[] toBytes() {
            return SerializedBytes.write(serializer, values);
        }

        void addFromBytes(byte[] bytes) {
            values.addAll(SerializedBytes.read(serializer, bytes));
        }

        @Override
        public List<T> get() {
            return List.copyOf(values);
        }

        @Override
        public void add(T value) {
            values.add(value);
        }

        @Override
        public void update(List<T> newValues) {
            values.clear();
            values.addAll(newValues);
        }

        @Override
        public void clear() {
            values.clear();
        }
    }
}
