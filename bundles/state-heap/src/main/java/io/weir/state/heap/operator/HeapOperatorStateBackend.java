package io.weir.state.heap.operator;

import io.weir.api.serialization.TypeSerializer;
import io.weir.api.state.ListState;
import io.weir.core.checkpoint.OperatorStateHandle;
import io.weir.core.state.AsyncSnapshot;
import io.weir.core.state.OperatorStateBackend;
import io.weir.core.storage.CheckpointStreamFactory;

import java.io.ByteArrayInputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Operator (non-keyed) list state on the heap (PROTOCOL.md §7). The synchronous part of a snapshot
 * copies each list (operator state is small); the asynchronous part ({@link OperatorSnapshotWriter})
 * writes the copies with one offset per element ({@link OperatorStateHandle#stateOffsets()}), so the
 * coordinator can redistribute elements on restore (round-robin for list state, to every subtask
 * for union list state, whose key in the handle is {@link OperatorStateHandle#unionKey}). Restore
 * reads the elements listed in each handle and concatenates lists of the same key; they are
 * deserialized when the operator registers the state, and restored states it never registers are
 * carried into later snapshots.
 *
 * <p>Task thread only, except the returned {@link AsyncSnapshot}.
 */
public final class HeapOperatorStateBackend implements OperatorStateBackend {
    private final String context;
    // Task thread only. By state key (name, or union key of the name). Insertion order = snapshot order.
    private final Map<String, HeapOperatorListState<?>> states = new LinkedHashMap<>();
    // Task thread only. Restored, not yet registered, by state key; the lists are never modified.
    private final Map<String, List<byte[]>> restored;
    // Task thread only.
    private boolean closed;

    /**
     * @param operatorId operator, for errors
     * @param restoreState handles to restore from (empty on a fresh start)
     * @throws IOException naming the file and the operator if restore state is missing or corrupt
     */
    public HeapOperatorStateBackend(String operatorId, List<OperatorStateHandle> restoreState) throws IOException {
        this.context = "operator " + operatorId;
        this.restored = OperatorStateRestorer.restore(restoreState, context);
    }

    /**
     * @throws IllegalStateException if the name was registered with another serializer instance or as
     *         a union list state, if it starts with {@link OperatorStateHandle#UNION_PREFIX}, or if the
     *         backend is closed
     * @throws UncheckedIOException naming the state if restored elements do not deserialize
     */
    @Override
    public <T> ListState<T> getListState(String name, TypeSerializer<T> serializer) {
        if (OperatorStateHandle.isUnionKey(name)) {
            throw new IllegalStateException("operator state name '" + name + "' of " + context + " starts with the reserved '"
                    + OperatorStateHandle.UNION_PREFIX + "'; choose another name");
        }
        return register(name, name, OperatorStateHandle.unionKey(name), serializer);
    }

    /**
     * @throws IllegalStateException if the name was registered with another serializer instance or as
     *         a list state, or if the backend is closed
     * @throws UncheckedIOException naming the state if restored elements do not deserialize
     */
    @Override
    public <T> ListState<T> getUnionListState(String name, TypeSerializer<T> serializer) {
        return register(name, OperatorStateHandle.unionKey(name), name, serializer);
    }

    @SuppressWarnings("unchecked")
    private <T> ListState<T> register(String name, String key, String otherKindKey, TypeSerializer<T> serializer) {
        if (closed) {
            throw new IllegalStateException("operator state backend of " + context + " is closed");
        }
        if (states.containsKey(otherKindKey)) {
            throw new IllegalStateException("operator state '" + name + "' of " + context + " is registered as a "
                    + (OperatorStateHandle.isUnionKey(key) ? "list state" : "union list state") + " already; a name has one kind");
        }
        HeapOperatorListState<?> existing = states.get(key);
        if (existing != null) {
            if (existing.serializer != serializer) {
                throw new IllegalStateException("operator state '" + name + "' of " + context
                        + " is registered with another serializer instance");
            }
            return (ListState<T>) existing;
        }
        HeapOperatorListState<T> state = new HeapOperatorListState<>(name, key, serializer);
        List<byte[]> bytes = restored.remove(key);
        if (bytes != null) {
            for (int i = 0; i < bytes.size(); i++) {
                try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(bytes.get(i)))) {
                    state.add(serializer.deserialize(in));
                } catch (IOException | RuntimeException e) {
                    throw new UncheckedIOException(new IOException("cannot deserialize element " + i + " of restored operator state '"
                            + name + "' of " + context + " (serializer changed incompatibly?): " + e.getMessage(), e));
                }
            }
        }
        states.put(key, state);
        return state;
    }

    /**
     * Synchronous part: copies every list (O(operator state size), which is small by nature).
     *
     * @return the asynchronous part; it yields null without creating a stream if every list is empty
     * @throws IllegalStateException if the backend is closed
     */
    @Override
    public AsyncSnapshot<OperatorStateHandle> snapshot(long checkpointId, CheckpointStreamFactory streams) {
        if (closed) {
            throw new IllegalStateException("operator state backend of " + context + " is closed");
        }
        List<OperatorSnapshotWriter.Picture<?>> pictures = new ArrayList<>();
        boolean empty = true;
        for (HeapOperatorListState<?> s : states.values()) {
            empty &= s.isEmpty();
            pictures.add(picture(s));
        }
        for (Map.Entry<String, List<byte[]>> e : restored.entrySet()) {
            empty &= e.getValue().isEmpty();
            pictures.add(new OperatorSnapshotWriter.Picture<>(e.getKey(), null, null, List.copyOf(e.getValue())));
        }
        if (empty) {
            return () -> null;
        }
        return new OperatorSnapshotWriter(checkpointId, pictures, streams, context);
    }

    private static <T> OperatorSnapshotWriter.Picture<T> picture(HeapOperatorListState<T> s) {
        return new OperatorSnapshotWriter.Picture<>(s.key, s.serializer, s.copy(), null);
    }

    /** Drops all state; snapshots already taken can still be written. */
    @Override
    public void close() {
        closed = true;
        states.clear();
        restored.clear();
    }
}
