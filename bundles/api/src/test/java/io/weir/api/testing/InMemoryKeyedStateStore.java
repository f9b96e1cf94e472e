package io.weir.api.testing;

import io.weir.api.serialization.TypeSerializer;
import io.weir.api.state.KeyedStateStore;
import io.weir.api.state.StateDescriptor;
import io.weir.api.state.ValueState;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;

/**
 * Test double of {@link KeyedStateStore}: value states kept serialized per (state name, current
 * key), the key being set by the test with {@link #setCurrentKey} before each record, as the
 * runtime does. Every read deserializes and every write serializes, so a test catches state that
 * does not survive serialization. Supports {@link StateDescriptor.Value} only.
 *
 * <p>Not thread-safe: one test thread, as the task thread in the runtime.
 */
public final class InMemoryKeyedStateStore implements KeyedStateStore {
    /** Serialized values: state name → key → bytes. Test thread only. */
    private final Map<String, Map<Object, byte[]>> values;
    private final boolean restored;
    /** The key that state reads and writes apply to; null until set. Test thread only. */
    private Object currentKey;

    private InMemoryKeyedStateStore(Map<String, Map<Object, byte[]>> values, boolean restored) {
        this.values = values;
        this.restored = restored;
    }

    /** @return a store with no state, not restored */
    public static InMemoryKeyedStateStore empty() {
        return new InMemoryKeyedStateStore(new HashMap<>(), false);
    }

    /**
     * @param snapshot what {@link #snapshot()} returned (copied)
     * @return a restored store holding the snapshotted values
     * @throws NullPointerException if {@code snapshot} is null
     */
    public static InMemoryKeyedStateStore restoredFrom(Map<String, Map<Object, byte[]>> snapshot) {
        return new InMemoryKeyedStateStore(deepCopy(Objects.requireNonNull(snapshot, "snapshot")), true);
    }

    /** @return whether the store was restored from a snapshot */
    public boolean isRestored() {
        return restored;
    }

    /** @return a copy of all keyed state: state name → key → serialized value */
    public Map<String, Map<Object, byte[]>> snapshot() {
        return deepCopy(values);
    }

    /** Scopes keyed state to {@code key} (compared with {@code equals}) for the next record. */
    public void setCurrentKey(Object key) {
        this.currentKey = key;
    }

    /**
     * @return a {@link ValueState} of the descriptor's name, scoped to the current key at each call
     * @throws UnsupportedOperationException if the descriptor is not a {@link StateDescriptor.Value}
     */
    @Override
    @SuppressWarnings("unchecked")
    public <S> S getState(StateDescriptor<S> descriptor) {
        if (!(descriptor instanceof StateDescriptor.Value<?> value)) {
            throw new UnsupportedOperationException("only value state in this test double, got " + descriptor);
        }
        Map<Object, byte[]> perKey = values.computeIfAbsent(value.name(), n -> new HashMap<>());
        return (S) new SerializedValueState<>(perKey, value.serializer());
    }

    private static Map<String, Map<Object, byte[]>> deepCopy(Map<String, Map<Object, byte[]>> source) {
        Map<String, Map<Object, byte[]>> copy = new HashMap<>();
        source.forEach((name, perKey) -> copy.put(name, new HashMap<>(perKey)));
        return copy;
    }

    /** One value state: reads and writes the bytes of the current key. */
    private final class SerializedValueState<T> implements ValueState<T> {
        private final Map<Object, byte[]> perKey;
        private final TypeSerializer<T> serializer;

        SerializedValueState(Map<Object, byte[]> perKey, TypeSerializer<T> serializer) {
            this.perKey = perKey;
            this.serializer = serializer;
        }

        @Override
        public T value() {
            byte[] bytes = perKey.get(currentKey);
            return bytes == null ? null : SerializedBytes.read(serializer, bytes);
        }

        @Override
        public void update(T value) {
            if (value == null) {
                clear();
                return;
            }
            perKey.put(currentKey, SerializedBytes.write(serializer, value));
        }

        @Override
        public void clear() {
            perKey.remove(currentKey);
        }
    }
}
