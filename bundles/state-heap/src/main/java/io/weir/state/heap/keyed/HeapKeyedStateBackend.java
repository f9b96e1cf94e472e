package io.weir.state.heap.keyed;

import io.weir.api.Row;
import io.weir.api.serialization.TypeSerializer;
import io.weir.api.state.StateDescriptor;
import io.weir.core.checkpoint.KeyGroupsStateHandle;
import io.weir.core.state.AsyncSnapshot;
import io.weir.core.state.KeyGroupRange;
import io.weir.core.state.KeyedStateBackend;
import io.weir.core.state.KeyedStateBackendParameters;
import io.weir.core.storage.CheckpointStreamFactory;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.ByteArrayInputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Keyed state on the JVM heap with copy-on-write snapshots (PROTOCOL.md §3, §7).
 *
 * <h2>Layout</h2>
 * Each registered state owns a {@link StateTable}: an array indexed by {@code keyGroup - range.start}
 * of {@link KeyGroupMap}s (open addressing; keys of one LONG, INT or TIMESTAMP field are compared by value
 * without reading the stored key row). Value and reducing state store the value; list and map state store a
 * per-key container. {@link #setCurrentKey} only stores the key and its key-group index (two int
 * comparisons for the range check; the key row caches its hash). A read-modify-write of the current key
 * ({@code value()} then {@code update()}) looks the key up once.
 *
 * <h2>Copy-on-write per key group and per value</h2>
 * Like Flink's {@code CopyOnWriteStateMap}, with a key-group map as the unit of copying the table's
 * structure, which keeps the record path a plain array-based lookup, and an entry as the unit of copying a
 * value:
 * <ul>
 * <li>The backend has an epoch counter (the state version). Every key-group map and every list/map container
 *     records the epoch it was created in; every entry whether its value was stored in the current epoch.</li>
 * <li>{@link #snapshot} (synchronous part, task thread) clones each table's array of map references,
 *     increments the epoch and registers it as the snapshot's version ({@link RunningSnapshots}) until the
 *     asynchronous part ends: O(number of states × key groups), independent of the state size.</li>
 * <li>While a snapshot runs, the first write to a key group whose map is older than its version replaces the
 *     map with a copy; a value-state value older than that version is copied (its serializer's
 *     {@code copy}) before {@code value()} hands it out for an in-place update; a list/map container from an
 *     older epoch is copied before it is changed. So nothing a snapshot references is ever modified, and any
 *     number of snapshots (e.g. a second one while the first is still writing) can be written concurrently,
 *     each seeing exactly the values at its own synchronous part. When no snapshot runs, maps and values are
 *     changed in place.</li>
 * <li>The asynchronous part ({@link KeyedSnapshotWriter}) iterates the captured maps on another
 *     thread. There are no locks on the record path, and one volatile read (the running snapshots'
 *     version) per {@code value()} and per write to a key group; the captured maps are published to the writer
 *     through final fields and the executor hand-off, and the writer's end back through that version.</li>
 * <li>Cost: while a snapshot runs, each key group that is written is copied once (O(its size)) and each
 *     value read for update once (nothing for immutable values, whose copy is the value itself). Old maps
 *     and values become garbage once the writer finishes.</li>
 * </ul>
 *
 * <h2>Restore</h2>
 * Only the key groups of this backend's range are read from the handles, by offset. A restored
 * state's entries stay serialized until the operator registers it through {@link #getState} (which
 * supplies the serializers); unregistered restored states are carried into later snapshots unchanged.
 * The snapshot format is {@link KeyedSnapshotFormat} (docs/checkpoint-format.md).
 *
 * <p>Task thread only, except the {@link AsyncSnapshot} returned by {@link #snapshot}.
 */
public final class HeapKeyedStateBackend implements KeyedStateBackend {
    private static final Logger LOG = LoggerFactory.getLogger(HeapKeyedStateBackend.class);

    private final KeyGroupRange range;
    private final TypeSerializer<Row> keySerializer;
    private final String context;
    private final KeyContext ctx;
    // Task thread only. Insertion order = snapshot order.
    private final Map<String, AbstractHeapState<?>> states = new LinkedHashMap<>();
    // Task thread only. Restored states not yet registered; entries are removed on registration.
    private final Map<String, RestoredState> restored;
    // Task thread only.
    private boolean closed;

    /**
     * @throws IOException naming the file and the subtask if restore state is missing or corrupt
     */
    public HeapKeyedStateBackend(KeyedStateBackendParameters parameters) throws IOException {
        this.range = parameters.keyGroupRange();
        this.keySerializer = parameters.keySerializer();
        this.ctx = new KeyContext(KeyContext.integralKeys(keySerializer));
        this.context = "job " + parameters.jobName() + " operator " + parameters.operatorId() + " subtask "
                + parameters.subtaskIndex();
        this.restored = new LinkedHashMap<>(new KeyedStateRestorer(range, context).restore(parameters.restoreState()));
        if (!parameters.restoreState().isEmpty()) {
            LOG.debug("Restored key groups {} of {} from {} handles: states {}", range, context,
                    parameters.restoreState().size(), restored.keySet());
        }
    }

    /**
     * @throws IllegalArgumentException if {@code keyGroup} is outside {@link #keyGroupRange()}
     */
    @Override
    public void setCurrentKey(Row key, int keyGroup) {
        if (!range.contains(keyGroup)) {
            throw new IllegalArgumentException("key group " + keyGroup + " of key " + key + " is outside " + range
                    + " of " + context);
        }
        ctx.setKey(key, keyGroup - range.start());
    }

    /** @return true: the key row is copied where it is kept, see {@link KeyContext#retainedKey()} */
    @Override
    public boolean acceptsReusedKeyRows() {
        return true;
    }

    /** @return a copy of the current key (one per key set), or null before the first record */
    @Override
    public Row currentKey() {
        return ctx.retainedKey();
    }

    @Override
    public KeyGroupRange keyGroupRange() {
        return range;
    }

    /**
     * Returns the state named by the descriptor, creating it (and loading its restored entries) on the
     * first call; later calls with the same name and kind return the same object.
     *
     * @throws IllegalStateException if the name was registered, or restored, as another kind of state,
     *         or if the backend is closed
     * @throws UncheckedIOException naming the state and subtask if restored entries do not deserialize
     */
    @Override
    @SuppressWarnings("unchecked")
    public <S> S getState(StateDescriptor<S> descriptor) {
        if (closed) {
            throw new IllegalStateException("keyed state backend of " + context + " is closed");
        }
        StateKind kind = StateKind.of(descriptor);
        AbstractHeapState<?> existing = states.get(descriptor.name());
        if (existing != null) {
            if (existing.kind != kind) {
                throw new IllegalStateException("state '" + descriptor.name() + "' of " + context + " is registered as "
                        + existing.kind + ", requested as " + kind);
            }
            return (S) existing;
        }
        RestoredState fromSnapshot = restored.get(descriptor.name());
        if (fromSnapshot != null && fromSnapshot.kind != kind) {
            throw new IllegalStateException("state '" + descriptor.name() + "' of " + context + " was checkpointed as "
                    + fromSnapshot.kind + ", requested as " + kind);
        }
        AbstractHeapState<?> state = create(descriptor);
        if (fromSnapshot != null) {
            load(state, fromSnapshot);
            restored.remove(descriptor.name());
        }
        states.put(descriptor.name(), state);
        return (S) state;
    }

    /**
     * Returns the timer queue {@code name}, creating it on the first call with its restored timers (stored as a
     * keyed state of kind TIMERS, so snapshots and key-group restore treat it like any other state).
     *
     * @throws IllegalStateException if the name is registered, or was checkpointed, as a non-timer state, or the
     *         backend is closed
     */
    @Override
    public io.weir.core.state.KeyedTimerQueue timerQueue(String name) {
        if (closed) {
            throw new IllegalStateException("keyed state backend of " + context + " is closed");
        }
        AbstractHeapState<?> existing = states.get(name);
        if (existing != null) {
            if (existing.kind != StateKind.TIMERS) {
                throw new IllegalStateException("state '" + name + "' of " + context + " is registered as " + existing.kind
                        + ", requested as timers");
            }
            return (HeapTimerQueue) existing;
        }
        RestoredState fromSnapshot = restored.get(name);
        if (fromSnapshot != null && fromSnapshot.kind != StateKind.TIMERS) {
            throw new IllegalStateException("state '" + name + "' of " + context + " was checkpointed as "
                    + fromSnapshot.kind + ", requested as timers");
        }
        HeapTimerQueue queue = new HeapTimerQueue(name, ctx, range.size(), range.start());
        if (fromSnapshot != null) {
            load(queue, fromSnapshot);
            restored.remove(name);
            queue.rebuildQueue();
            LOG.debug("Restored {} timers '{}' of {}", queue.size(), name, context);
        }
        states.put(name, queue);
        return queue;
    }

    private AbstractHeapState<?> create(StateDescriptor<?> d) {
        int n = range.size();
        if (d instanceof StateDescriptor.Value<?> v) {
            return new HeapValueState<>(v.name(), v.serializer(), ctx, n);
        } else if (d instanceof StateDescriptor.List<?> l) {
            return new HeapListState<>(l.name(), l.serializer(), ctx, n);
        } else if (d instanceof StateDescriptor.Map<?, ?> m) {
            return new HeapMapState<>(m.name(), m.keySerializer(), m.valueSerializer(), ctx, n);
        }
        return reducing((StateDescriptor.Reducing<?>) d, ctx, n);
    }

    private static <T> HeapReducingState<T> reducing(StateDescriptor.Reducing<T> r, KeyContext ctx, int n) {
        return new HeapReducingState<>(r.name(), r.reduceFunction(), r.serializer(), ctx, n);
    }

    private <V> void load(AbstractHeapState<V> state, RestoredState from) {
        for (int i = 0; i < from.entries.length; i++) {
            byte[] bytes = from.entries[i];
            if (bytes == null) {
                continue;
            }
            try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(bytes))) {
                for (int e = 0; e < from.entryCounts[i]; e++) {
                    Row key = keySerializer.deserialize(in);
                    state.table.putRestored(i, key, state.readValue(in));
                }
                if (in.available() > 0) {
                    throw new IOException(in.available() + " bytes left after " + from.entryCounts[i] + " entries");
                }
            } catch (IOException | RuntimeException e) {
                throw new UncheckedIOException(new IOException("cannot deserialize restored state '" + state.name
                        + "' in key group " + (range.start() + i) + " of " + context
                        + " (serializer changed incompatibly?): " + e.getMessage(), e));
            }
        }
    }

    /**
     * Synchronous part: captures every state's key-group maps, increments the epoch and registers it as the
     * version this snapshot needs until its writer ends, O(states × key groups). The returned writer produces
     * exactly the values as of this call, however the task thread changes state meanwhile. The version stays
     * registered until the writer ends or is {@linkplain AsyncSnapshot#discard() discarded} (a checkpoint given up
     * before its asynchronous part); while registered, values it captured are copied before an in-place update.
     *
     * @return the asynchronous part; it yields null without creating a stream if no state has an entry
     * @throws IllegalStateException if the backend is closed
     */
    @Override
    public AsyncSnapshot<KeyGroupsStateHandle> snapshot(long checkpointId, CheckpointStreamFactory streams) {
        if (closed) {
            throw new IllegalStateException("keyed state backend of " + context + " is closed");
        }
        List<KeyedSnapshotWriter.Picture<?>> pictures = new ArrayList<>(states.size() + restored.size());
        boolean empty = true;
        for (AbstractHeapState<?> state : states.values()) {
            empty &= state.table.isEmpty();
            pictures.add(picture(state));
        }
        for (RestoredState r : restored.values()) {
            empty &= r.isEmpty();
            pictures.add(new KeyedSnapshotWriter.Picture<>(r.name, r.kind, null, null, r));
        }
        ctx.epoch++;
        if (empty) {
            return () -> null;
        }
        // from here until the writer ends, nothing stored before this epoch is changed in place
        ctx.snapshots.start(ctx.epoch);
        return new KeyedSnapshotWriter(checkpointId, range, keySerializer, pictures, streams, context,
                ctx.snapshots, ctx.epoch);
    }

    private static <V> KeyedSnapshotWriter.Picture<V> picture(AbstractHeapState<V> state) {
        return new KeyedSnapshotWriter.Picture<>(state.name, state.kind, state, state.table.capture(), null);
    }

    /** Drops all state; snapshots already taken can still be written. */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        states.values().forEach(s -> s.table.clear());
        states.clear();
        restored.clear();
    }
}
