package io.weir.benchmarks.source;

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
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The operator context of one source subtask (index 0 of parallelism 1) for {@link SourceRestoreBenchmark}:
 * operator list state kept in memory and serialized with its own serializer on {@link #snapshot},
 * as a checkpoint would, so that a restore pays for deserializing too. No keyed state. Not thread-safe.
 */
final class MapOperatorContext implements OperatorContext, OperatorStateStore {
    private final Map<String, byte[]> restored;
    private final Map<String, Entry<?>> states = new LinkedHashMap<>();

    /** @param restored state name → serialized list from {@link #snapshot}; empty for a fresh start */
    MapOperatorContext(Map<String, byte[]> restored) {
        this.restored = restored;
    }

    /** @return every registered list state, serialized; the argument of a restoring context */
    Map<String, byte[]> snapshot() {
        Map<String, byte[]> out = new HashMap<>();
        states.forEach((name, entry) -> out.put(name, entry.bytes()));
        return out;
    }

    @Override
    public String jobName() {
        return "source-restore-benchmark";
    }

    @Override
    public String operatorId() {
        return "source";
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
        return !restored.isEmpty();
    }

    @Override
    public OperatorStateStore operatorState() {
        return this;
    }

    /** @throws UnsupportedOperationException always: a source has no keyed state */
    @Override
    public KeyedStateStore keyedState() {
        throw new UnsupportedOperationException("no keyed state in a source");
    }

    @Override
    public <T> ListState<T> getListState(String name, TypeSerializer<T> serializer) {
        Entry<T> entry = new Entry<>(Serializers.listOf(serializer));
        byte[] bytes = restored.get(name);
        if (bytes != null) {
            try {
                entry.values.addAll(entry.serializer.deserialize(new DataInputStream(new ByteArrayInputStream(bytes))));
            } catch (IOException e) {
                throw new UncheckedIOException("state " + name + " does not deserialize", e);
            }
        }
        states.put(name, entry);
        return entry;
    }

    /** One subtask sees only its own elements, so a union list state is a list state here. */
    @Override
    public <T> ListState<T> getUnionListState(String name, TypeSerializer<T> serializer) {
        return getListState(name, serializer);
    }

    private static final class Entry<T> implements ListState<T> {
        private final TypeSerializer<List<T>> serializer;
        private final List<T> values = new ArrayList<>();

        Entry(TypeSerializer<List<T>> serializer) {
            this.serializer = serializer;
        }

        byte[] bytes() {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            try {
                serializer.serialize(values, new DataOutputStream(out));
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            return out.toByteArray();
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
