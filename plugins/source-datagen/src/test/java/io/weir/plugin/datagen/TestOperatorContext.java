package io.weir.plugin.datagen;

import io.weir.api.operator.OperatorContext;
import io.weir.api.serialization.Serializers;
import io.weir.api.serialization.TypeSerializer;
import io.weir.api.state.KeyedStateStore;
import io.weir.api.state.ListState;
import io.weir.api.state.OperatorStateStore;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Test double: an operator context with in-memory operator state whose {@link #snapshot} serializes
 * every list state (as a checkpoint would) and whose restored form deserializes on first access.
 */
final class TestOperatorContext implements OperatorContext, OperatorStateStore {
    private final int subtask;
    private final int parallelism;
    private final Map<String, byte[]> restored;
    private final Map<String, Registered<?>> states = new HashMap<>();
    /** Set by tests once a reader was initialized with this context. */
    boolean initialized;

    TestOperatorContext(int subtask, int parallelism, Map<String, byte[]> restored) {
        this.subtask = subtask;
        this.parallelism = parallelism;
        this.restored = restored;
    }

    static TestOperatorContext fresh(int subtask, int parallelism) {
        return new TestOperatorContext(subtask, parallelism, null);
    }

    /** @return every list state in binary form */
    Map<String, byte[]> snapshot() {
        Map<String, byte[]> out = new HashMap<>();
        states.forEach((name, state) -> out.put(name, state.toBytes()));
        return out;
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
        return subtask;
    }

    @Override
    public int parallelism() {
        return parallelism;
    }

    @Override
    public boolean isRestored() {
        return restored != null;
    }

    @Override
    public OperatorStateStore operatorState() {
        return this;
    }

    @Override
    public KeyedStateStore keyedState() {
        throw new IllegalStateException("not keyed");
    }

    @Override
    @SuppressWarnings("unchecked")
    public <T> ListState<T> getListState(String name, TypeSerializer<T> serializer) {
        return (ListState<T>) states.computeIfAbsent(name, n -> {
            Registered<T> state = new Registered<>(serializer);
            if (restored != null && restored.containsKey(n)) {
                state.fromBytes(restored.get(n));
            }
            return state;
        });
    }

    private static final class Registered<T> implements ListState<T> {
        private final TypeSerializer<List<T>> serializer;
        private final List<T> values = new ArrayList<>();

        Registered(TypeSerializer<T> element) {
            this.serializer = Serializers.listOf(element);
        }

        byte[] toBytes() {
            try {
                ByteArrayOutputStream bytes = new ByteArrayOutputStream();
                serializer.serialize(values, new DataOutputStream(bytes));
                return bytes.toByteArray();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }

        void fromBytes(byte[] bytes) {
            try {
                values.addAll(serializer.deserialize(new DataInputStream(new ByteArrayInputStream(bytes))));
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
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
