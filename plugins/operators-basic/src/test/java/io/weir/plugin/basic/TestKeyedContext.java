package io.weir.plugin.basic;

import io.weir.api.operator.OperatorContext;
import io.weir.api.serialization.TypeSerializer;
import io.weir.api.state.KeyedStateStore;
import io.weir.api.state.OperatorStateStore;
import io.weir.api.state.StateDescriptor;
import io.weir.api.state.ValueState;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.HashMap;
import java.util.Map;

/**
 * Test double: an operator context whose keyed state keeps value-state entries serialized per
 * (state name, current key), the key being set by the test before each record, as the runtime does.
 */
public final class TestKeyedContext implements OperatorContext, KeyedStateStore {
    private final Map<String, Map<Object, byte[]>> values;
    private final boolean restored;
    private Object currentKey;

    private TestKeyedContext(Map<String, Map<Object, byte[]>> values, boolean restored) {
        this.values = values;
        this.restored = restored;
    }

    /** @return a context with empty state */
    public static TestKeyedContext fresh() {
        return new TestKeyedContext(new HashMap<>(), false);
    }

    /** @return a context restored from {@link #snapshot()} */
    public static TestKeyedContext restoredFrom(Map<String, Map<Object, byte[]>> snapshot) {
        Map<String, Map<Object, byte[]>> copy = new HashMap<>();
        snapshot.forEach((name, perKey) -> copy.put(name, new HashMap<>(perKey)));
        return new TestKeyedContext(copy, true);
    }

    /** @return a copy of all keyed state */
    public Map<String, Map<Object, byte[]>> snapshot() {
        Map<String, Map<Object, byte[]>> copy = new HashMap<>();
        values.forEach((name, perKey) -> copy.put(name, new HashMap<>(perKey)));
        return copy;
    }

    /** Scopes keyed state to {@code key} for the next record. */
    public void setCurrentKey(Object key) {
        this.currentKey = key;
    }

    @Override
    public String jobName() {
        return "test-job";
    }

    @Override
    public String operatorId() {
        return "test-op";
    }

    @Override
    public int subtaskIndex() {
        return 0;
    }

    @Override
    public int parallelism() {
        return 1;
    }

    @Override
    public boolean isRestored() {
        return restored;
    }

    @Override
    public OperatorStateStore operatorState() {
        throw new UnsupportedOperationException("no operator state in this test double");
    }

    @Override
    public KeyedStateStore keyedState() {
        return this;
    }

    @Override
    @SuppressWarnings("unchecked")
    public <S> S getState(StateDescriptor<S> descriptor) {
        if (!(descriptor instanceof StateDescriptor.Value<?> value)) {
            throw new UnsupportedOperationException("only value state in this test double");
        }
        Map<Object, byte[]> perKey = values.computeIfAbsent(value.name(), n -> new HashMap<>());
        return (S) new SerializedValueState<>(perKey, value.serializer());
    }

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
            try {
                return bytes == null ? null : serializer.deserialize(new DataInputStream(new ByteArrayInputStream(bytes)));
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }

        @Override
        public void update(T value) {
            if (value == null) {
                clear();
                return;
            }
            try {
                ByteArrayOutputStream out = new ByteArrayOutputStream();
                serializer.serialize(value, new DataOutputStream(out));
                perKey.put(currentKey, out.toByteArray());
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }

        @Override
        public void clear() {
            perKey.remove(currentKey);
        }
    }
}
