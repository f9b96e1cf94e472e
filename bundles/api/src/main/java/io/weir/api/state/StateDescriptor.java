package io.weir.api.state;

import io.weir.api.serialization.TypeSerializer;

import java.util.Objects;

/**
 * Names a piece of state and tells the backend how to serialize it. The name is the state's
 * identity in checkpoints: keep it stable across versions of an operator.
 *
 * @param <S> the state interface ({@link ValueState}, ...)
 */
public sealed interface StateDescriptor<S> permits StateDescriptor.Value, StateDescriptor.List,
        StateDescriptor.Map, StateDescriptor.Reducing {

    /** @return the state name, unique within the operator */
    String name();

    /**
     * A {@link ValueState}.
     *
     * @param name state name
     * @param serializer value serializer
     */
    record Value<T>(String name, TypeSerializer<T> serializer) implements StateDescriptor<ValueState<T>> {
        public Value {
            requireName(name);
            Objects.requireNonNull(serializer, "serializer");
        }
    }

    /**
     * A {@link ListState}.
     *
     * @param name state name
     * @param serializer element serializer
     */
    record List<T>(String name, TypeSerializer<T> serializer) implements StateDescriptor<ListState<T>> {
        public List {
            requireName(name);
            Objects.requireNonNull(serializer, "serializer");
        }
    }

    /**
     * A {@link MapState}.
     *
     * @param name state name
     * @param keySerializer user key serializer
     * @param valueSerializer value serializer
     */
    record Map<K, V>(String name, TypeSerializer<K> keySerializer, TypeSerializer<V> valueSerializer)
            implements StateDescriptor<MapState<K, V>> {
        public Map {
            requireName(name);
            Objects.requireNonNull(keySerializer, "keySerializer");
            Objects.requireNonNull(valueSerializer, "valueSerializer");
        }
    }

    /**
     * A {@link ReducingState}.
     *
     * @param name state name
     * @param reduceFunction how added values combine
     * @param serializer value serializer
     */
    record Reducing<T>(String name, ReduceFunction<T> reduceFunction, TypeSerializer<T> serializer)
            implements StateDescriptor<ReducingState<T>> {
        public Reducing {
            requireName(name);
            Objects.requireNonNull(reduceFunction, "reduceFunction");
            Objects.requireNonNull(serializer, "serializer");
        }
    }

    private static void requireName(String name) {
        if (name == null || name.isEmpty()) {
            throw new IllegalArgumentException("state name must not be empty");
        }
    }
}
