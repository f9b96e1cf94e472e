package io.weir.state.heap.keyed;

import io.weir.api.RowSerializer;
import io.weir.api.serialization.Serializers;
import io.weir.api.serialization.TypeSerializer;
import io.weir.api.state.ListState;
import io.weir.api.state.MapState;
import io.weir.api.state.ReducingState;
import io.weir.api.state.StateDescriptor;
import io.weir.api.state.ValueState;
import io.weir.core.checkpoint.KeyGroupsStateHandle;
import io.weir.core.checkpoint.StreamStateHandle.FileStateHandle;
import io.weir.core.state.AsyncSnapshot;
import io.weir.core.state.KeyHashVersion;
import io.weir.core.state.KeyGroupRange;
import io.weir.core.state.KeyedStateBackend;
import io.weir.core.state.KeyedStateBackendParameters;
import io.weir.state.heap.FileStreamFactory;
import io.weir.state.heap.HeapStateBackend;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.io.DataInput;
import java.io.DataOutput;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static io.weir.state.heap.keyed.HeapKeyedStateSemanticsTest.KEY_SCHEMA;
import static io.weir.state.heap.keyed.HeapKeyedStateSemanticsTest.MAX_PARALLELISM;
import static io.weir.state.heap.keyed.HeapKeyedStateSemanticsTest.key;
import static io.weir.state.heap.keyed.HeapKeyedStateSemanticsTest.setKey;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class HeapKeyedSnapshotTest {
    private static final int KEYS = 500;
    private static final KeyGroupRange ALL = new KeyGroupRange(0, MAX_PARALLELISM - 1);

    @TempDir
    Path dir;

    private final ExecutorService asyncPool = Executors.newSingleThreadExecutor();

    @AfterEach
    void stopPool() {
        asyncPool.shutdownNow();
    }

    /**
     * Drives one kind of state and an independent model of it: {@link #apply} changes both the same
     * way; model values are immutable, so a shallow copy of the model map is a snapshot of it.
     */
    enum Kind {
        VALUE {
            @Override
            StateDescriptor<?> descriptor() {
                return new StateDescriptor.Value<>("value", Serializers.LONG);
            }

            @Override
            @SuppressWarnings("unchecked")
            void apply(Object state, long k, long step, Map<Long, Object> model) {
                ValueState<Long> s = (ValueState<Long>) state;
                if (step % 17 == 0) {
                    s.clear();
                    model.remove(k);
                } else {
                    s.update(step * 31 + k);
                    model.put(k, step * 31 + k);
                }
            }

            @Override
            @SuppressWarnings("unchecked")
            Object read(Object state) {
                return ((ValueState<Long>) state).value();
            }
        },
        LIST {
            @Override
            StateDescriptor<?> descriptor() {
                return new StateDescriptor.List<>("list", Serializers.LONG);
            }

            @Override
            @SuppressWarnings("unchecked")
            void apply(Object state, long k, long step, Map<Long, Object> model) {
                ListState<Long> s = (ListState<Long>) state;
                if (step % 23 == 0) {
                    s.update(List.of(step, k));
                    model.put(k, List.of(step, k));
                } else if (step % 29 == 0) {
                    s.clear();
                    model.remove(k);
                } else {
                    s.add(step);
                    List<Long> l = new ArrayList<>((List<Long>) model.getOrDefault(k, List.of()));
                    l.add(step);
                    model.put(k, List.copyOf(l));
                }
            }

            @Override
            @SuppressWarnings("unchecked")
            Object read(Object state) {
                List<Long> l = ((ListState<Long>) state).get();
                return l.isEmpty() ? null : l;
            }
        },
        MAP {
            @Override
            StateDescriptor<?> descriptor() {
                return new StateDescriptor.Map<>("map", Serializers.LONG, Serializers.STRING);
            }

            @Override
            @SuppressWarnings("unchecked")
            void apply(Object state, long k, long step, Map<Long, Object> model) {
                MapState<Long, String> s = (MapState<Long, String>) state;
                Map<Long, String> m = new HashMap<>((Map<Long, String>) model.getOrDefault(k, Map.of()));
                if (step % 7 == 0) {
                    s.remove(step % 5);
                    m.remove(step % 5);
                } else {
                    s.put(step % 5, "v" + step);
                    m.put(step % 5, "v" + step);
                }
                if (m.isEmpty()) {
                    model.remove(k);
                } else {
                    model.put(k, Map.copyOf(m));
                }
            }

            @Override
            @SuppressWarnings("unchecked")
            Object read(Object state) {
                Map<Long, String> m = ((MapState<Long, String>) state).entries();
                return m.isEmpty() ? null : m;
            }
        },
        /** A mutable value (a one-element {@code long[]}) changed in place: {@code value()}, add, {@code update()}. */
        MUTABLE_VALUE {
            @Override
            StateDescriptor<?> descriptor() {
                return new StateDescriptor.Value<>("mutable", new MutableLongSerializer());
            }

            @Override
            @SuppressWarnings("unchecked")
            void apply(Object state, long k, long step, Map<Long, Object> model) {
                ValueState<long[]> s = (ValueState<long[]>) state;
                if (step % 19 == 0) {
                    s.clear();
                    model.remove(k);
                    return;
                }
                long[] sum = s.value();
                if (sum == null) {
                    sum = new long[1];
                }
                sum[0] += step;
                s.update(sum);
                model.merge(k, step, (a, b) -> (Long) a + (Long) b);
            }

            @Override
            @SuppressWarnings("unchecked")
            Object read(Object state) {
                long[] sum = ((ValueState<long[]>) state).value();
                return sum == null ? null : sum[0];
            }
        },
        REDUCING {
            @Override
            StateDescriptor<?> descriptor() {
                return new StateDescriptor.Reducing<Long>("reducing", Long::sum, Serializers.LONG);
            }

            @Override
            @SuppressWarnings("unchecked")
            void apply(Object state, long k, long step, Map<Long, Object> model) {
                try {
                    ((ReducingState<Long>) state).add(step);
                } catch (Exception e) {
                    throw new AssertionError(e);
                }
                model.merge(k, step, (a, b) -> (Long) a + (Long) b);
            }

            @Override
            @SuppressWarnings("unchecked")
            Object read(Object state) {
                return ((ReducingState<Long>) state).get();
            }
        };

        abstract StateDescriptor<?> descriptor();

        abstract void apply(Object state, long key, long step, Map<Long, Object> model);

        abstract Object read(Object state);
    }

    /** A one-element {@code long[]}: 8 bytes; {@link #copy} clones the array and counts the copies. */
    static final class MutableLongSerializer implements TypeSerializer<long[]> {
        final AtomicInteger copies = new AtomicInteger();

        @Override
        public void serialize(long[] value, DataOutput out) throws IOException {
            out.writeLong(value[0]);
        }

        @Override
        public long[] deserialize(DataInput in) throws IOException {
            return new long[] {in.readLong()};
        }

        @Override
        public long[] copy(long[] value) {
            copies.incrementAndGet();
            return value.clone();
        }
    }

    private static KeyedStateBackend backend(KeyGroupRange range, List<KeyGroupsStateHandle> restore) throws Exception {
        return new HeapStateBackend().createKeyedStateBackend(new KeyedStateBackendParameters("job", "op", 0,
                MAX_PARALLELISM, range, new RowSerializer(KEY_SCHEMA), restore));
    }

    /** Applies one step to key {@code step % KEYS}. */
    private static void step(KeyedStateBackend b, Kind kind, Object state, long step, Map<Long, Object> model) {
        long k = step % KEYS;
        setKey(b, k);
        kind.apply(state, k, step, model);
    }

    /** Asserts that {@code handle}, restored into {@code range}, holds exactly {@code expected} for the keys in range. */
    private static void assertRestoredEquals(Kind kind, KeyGroupRange range, List<KeyGroupsStateHandle> handles,
            Map<Long, Object> expected) throws Exception {
        KeyedStateBackend restored = backend(range, handles);
        Object state = restored.getState(kind.descriptor());
        Map<Long, Object> actual = new HashMap<>();
        Map<Long, Object> expectedInRange = new HashMap<>();
        for (long k = 0; k < KEYS; k++) {
            int kg = KeyHashVersion.LEGACY.keyGroupFor(key(k), MAX_PARALLELISM);
            if (!range.contains(kg)) {
                continue;
            }
            restored.setCurrentKey(key(k), kg);
            Object v = kind.read(state);
            if (v != null) {
                actual.put(k, v);
            }
            if (expected.containsKey(k)) {
                expectedInRange.put(k, expected.get(k));
            }
        }
        assertThat(actual).isEqualTo(expectedInRange);
    }

    @ParameterizedTest
    @EnumSource(Kind.class)
    void snapshotRoundTripRestoresEveryKey(Kind kind) throws Exception {
        KeyedStateBackend b = backend(ALL, List.of());
        Object state = b.getState(kind.descriptor());
        Map<Long, Object> model = new HashMap<>();
        for (long s = 1; s <= 3 * KEYS; s++) {
            step(b, kind, state, s, model);
        }
        KeyGroupsStateHandle handle = b.snapshot(1, new FileStreamFactory(dir)).write();
        assertThat(handle.range()).isEqualTo(ALL);
        assertRestoredEquals(kind, ALL, List.of(handle), model);
    }

    /**
     * Entries made while the runtime sets every key through one row it overwrites ({@code acceptsReusedKeyRows}):
     * the snapshot writes each entry's own key, not what the reused row holds at the end.
     */
    @ParameterizedTest
    @EnumSource(Kind.class)
    void entriesMadeThroughAReusedKeyRowAreSnapshottedWithTheirOwnKeys(Kind kind) throws Exception {
        KeyedStateBackend b = backend(ALL, List.of());
        Object state = b.getState(kind.descriptor());
        io.weir.api.Row.Reusable reused = new io.weir.api.Row.Reusable(KEY_SCHEMA);
        Map<Long, Object> model = new HashMap<>();
        for (long s = 1; s <= 3 * KEYS; s++) {
            long k = (s * 7919) % KEYS;
            io.weir.api.Row row = reused.setLong(0, k).row(); // unboxed, as the record path decodes it
            b.setCurrentKey(row, KeyHashVersion.LEGACY.keyGroupFor(row, MAX_PARALLELISM));
            kind.apply(state, k, s, model);
        }
        reused.setLong(0, -1L);
        KeyGroupsStateHandle handle = b.snapshot(1, new FileStreamFactory(dir)).write();
        assertRestoredEquals(kind, ALL, List.of(handle), model);
    }

    /**
     * The snapshot writes integral keys from the maps' long keys, not from the key rows: keys of each integral type,
     * extremes and the null key included, restore through the key serializer (RowSerializer's form) to their values.
     */
    @ParameterizedTest
    @EnumSource(value = io.weir.api.FieldType.class, names = {"LONG", "INT", "TIMESTAMP"})
    void integralKeysOfEveryTypeAndTheNullKeyRestoreFromTheSnapshot(io.weir.api.FieldType type) throws Exception {
        io.weir.api.Schema keySchema = io.weir.api.Schema.builder().field("k", type).build();
        List<Object> keys = new ArrayList<>(type == io.weir.api.FieldType.INT
                ? List.of(0, -1, 7, Integer.MAX_VALUE, Integer.MIN_VALUE)
                : List.of(0L, -1L, 7L, Long.MAX_VALUE, Long.MIN_VALUE));
        keys.add(null);
        StateDescriptor.Value<Long> descriptor = new StateDescriptor.Value<>("value", Serializers.LONG);
        KeyedStateBackend b = new HeapStateBackend().createKeyedStateBackend(new KeyedStateBackendParameters("job", "op",
                0, MAX_PARALLELISM, ALL, new RowSerializer(keySchema), List.of()));
        ValueState<Long> state = b.getState(descriptor);
        for (int i = 0; i < keys.size(); i++) {
            io.weir.api.Row key = new io.weir.api.Row(keySchema, keys.get(i));
            b.setCurrentKey(key, KeyHashVersion.CURRENT.keyGroupFor(key, MAX_PARALLELISM));
            state.update(100L + i);
        }

        KeyGroupsStateHandle handle = b.snapshot(1, new FileStreamFactory(dir)).write();
        KeyedStateBackend restored = new HeapStateBackend().createKeyedStateBackend(new KeyedStateBackendParameters(
                "job", "op", 0, MAX_PARALLELISM, ALL, new RowSerializer(keySchema), List.of(handle)));
        ValueState<Long> restoredState = restored.getState(descriptor);
        for (int i = 0; i < keys.size(); i++) {
            io.weir.api.Row key = new io.weir.api.Row(keySchema, keys.get(i));
            restored.setCurrentKey(key, KeyHashVersion.CURRENT.keyGroupFor(key, MAX_PARALLELISM));
            assertThat(restoredState.value()).as("key %s", keys.get(i)).isEqualTo(100L + i);
        }
        io.weir.api.Row absent = new io.weir.api.Row(keySchema, type == io.weir.api.FieldType.INT ? (Object) 8 : (Object) 8L);
        restored.setCurrentKey(absent, KeyHashVersion.CURRENT.keyGroupFor(absent, MAX_PARALLELISM));
        assertThat(restoredState.value()).isNull();
    }

    /**
     * Copy-on-write: the writer is held at its first byte while the task thread keeps changing state,
     * then runs on another thread while the task thread still changes state; the restore must give the
     * model as it was at the synchronous part.
     */
    @ParameterizedTest
    @EnumSource(Kind.class)
    void asyncPartWritesExactlyTheValuesAtSnapshotTimeWhileTaskKeepsUpdating(Kind kind) throws Exception {
        KeyedStateBackend b = backend(ALL, List.of());
        Object state = b.getState(kind.descriptor());
        Map<Long, Object> model = new HashMap<>();
        long s = 1;
        for (; s <= 4 * KEYS; s++) {
            step(b, kind, state, s, model);
        }
        CountDownLatch gate = new CountDownLatch(1);
        FileStreamFactory streams = new FileStreamFactory(dir, gate);
        AsyncSnapshot<KeyGroupsStateHandle> async = b.snapshot(1, streams);
        Map<Long, Object> expected = new HashMap<>(model);
        Future<KeyGroupsStateHandle> future = asyncPool.submit(async::write);
        assertThat(streams.writing.await(10, TimeUnit.SECONDS)).isTrue();

        for (long until = s + 5 * KEYS; s < until; s++) {
            step(b, kind, state, s, model);
        }
        gate.countDown();
        long during = 0;
        while (!future.isDone()) {
            step(b, kind, state, s++, model);
            during++;
        }
        KeyGroupsStateHandle handle = future.get();

        assertThat(model).isNotEqualTo(expected);
        assertRestoredEquals(kind, ALL, List.of(handle), expected);
        // The live state followed every update, unaffected by copying.
        for (long k = 0; k < KEYS; k++) {
            setKey(b, k);
            assertThat(kind.read(state)).as("key %d (%d updates during the write)", k, during).isEqualTo(model.get(k));
        }
    }

    @ParameterizedTest
    @EnumSource(Kind.class)
    void secondSnapshotWhileFirstIsStillWritingIsAlsoConsistent(Kind kind) throws Exception {
        KeyedStateBackend b = backend(ALL, List.of());
        Object state = b.getState(kind.descriptor());
        Map<Long, Object> model = new HashMap<>();
        long s = 1;
        for (; s <= 2 * KEYS; s++) {
            step(b, kind, state, s, model);
        }
        CountDownLatch gate = new CountDownLatch(1);
        FileStreamFactory gated = new FileStreamFactory(dir, gate);
        Future<KeyGroupsStateHandle> first = asyncPool.submit(b.snapshot(1, gated)::write);
        Map<Long, Object> expected1 = new HashMap<>(model);
        assertThat(gated.writing.await(10, TimeUnit.SECONDS)).isTrue();

        for (long until = s + 3 * KEYS; s < until; s++) {
            step(b, kind, state, s, model);
        }
        AsyncSnapshot<KeyGroupsStateHandle> second = b.snapshot(2, new FileStreamFactory(dir));
        Map<Long, Object> expected2 = new HashMap<>(model);
        ExecutorService secondPool = Executors.newSingleThreadExecutor();
        try {
            Future<KeyGroupsStateHandle> secondFuture = secondPool.submit(second::write);
            while (!secondFuture.isDone()) {
                step(b, kind, state, s++, model);
            }
            for (long until = s + 2 * KEYS; s < until; s++) {
                step(b, kind, state, s, model);
            }
            gate.countDown();
            KeyGroupsStateHandle handle1 = first.get(30, TimeUnit.SECONDS);
            assertThat(expected1).isNotEqualTo(expected2);
            assertRestoredEquals(kind, ALL, List.of(handle1), expected1);
            assertRestoredEquals(kind, ALL, List.of(secondFuture.get()), expected2);
        } finally {
            secondPool.shutdownNow();
        }
    }

    /**
     * Per-entry copy-on-write of a value read for update: the stored object is handed out (no copy) before any
     * snapshot; after a snapshot the first read of each key copies (while the writer runs and after it ended
     * alike), later reads of the same key hand out that copy, and the snapshot holds the values of its barrier.
     */
    @Test
    void aValueIsCopiedForUpdateOncePerKeyAfterEachSnapshot() throws Exception {
        MutableLongSerializer serializer = new MutableLongSerializer();
        KeyedStateBackend b = backend(ALL, List.of());
        ValueState<long[]> state = b.getState(new StateDescriptor.Value<>("mutable", serializer));
        long[][] stored = new long[3][];
        for (long k = 0; k < 3; k++) {
            setKey(b, k);
            stored[(int) k] = new long[] {10 * k};
            state.update(stored[(int) k]);
        }
        setKey(b, 1);
        assertThat(state.value()).isSameAs(stored[1]);

        CountDownLatch gate = new CountDownLatch(1);
        FileStreamFactory streams = new FileStreamFactory(dir, gate);
        Future<KeyGroupsStateHandle> running = asyncPool.submit(b.snapshot(1, streams)::write);
        assertThat(streams.writing.await(10, TimeUnit.SECONDS)).isTrue();
        setKey(b, 1);
        long[] copy = state.value();
        assertThat(copy).isNotSameAs(stored[1]).containsExactly(10);
        copy[0] = 11;
        state.update(copy);
        assertThat(state.value()).isSameAs(copy);
        setKey(b, 2);
        state.value()[0] = 99; // changed without update(): a copy, never the captured object
        assertThat(serializer.copies).hasValue(2);
        assertThat(stored[1]).containsExactly(10);
        assertThat(stored[2]).containsExactly(20);

        gate.countDown();
        KeyGroupsStateHandle handle = running.get(30, TimeUnit.SECONDS);
        setKey(b, 0);
        long[] copyOfKey0 = state.value();
        assertThat(copyOfKey0).isNotSameAs(stored[0]).containsExactly(0);
        assertThat(state.value()).isSameAs(copyOfKey0);
        setKey(b, 1);
        assertThat(state.value()).isSameAs(copy);
        assertThat(serializer.copies).hasValue(3);
        assertRestoredEquals(Kind.MUTABLE_VALUE, ALL, List.of(handle), Map.of(0L, 0L, 1L, 10L, 2L, 20L));
    }

    /**
     * A snapshot given up before its asynchronous part (an aborted checkpoint) is discarded: like after a completed
     * one, the first update of a value copies it once, and from then on it is changed in place, not copied again.
     */
    @Test
    void aDiscardedSnapshotCostsOneCopyPerChangedValue() throws Exception {
        MutableLongSerializer serializer = new MutableLongSerializer();
        KeyedStateBackend b = backend(ALL, List.of());
        ValueState<long[]> state = b.getState(new StateDescriptor.Value<>("mutable", serializer));
        setKey(b, 7);
        long[] stored = {70};
        state.update(stored);

        AsyncSnapshot<KeyGroupsStateHandle> given = b.snapshot(1, new FileStreamFactory(dir, null));
        given.discard();
        given.discard(); // idempotent

        long[] copy = state.value();
        assertThat(copy).isNotSameAs(stored).containsExactly(70);
        assertThat(state.value()).isSameAs(copy);
        assertThat(state.value()).isSameAs(copy);
        assertThat(serializer.copies).hasValue(1);
    }

    @Test
    void restoreIntoSmallerRangeReadsOnlyItsKeyGroups() throws Exception {
        Kind kind = Kind.MAP;
        KeyedStateBackend b = backend(ALL, List.of());
        Object state = b.getState(kind.descriptor());
        Map<Long, Object> model = new HashMap<>();
        for (long s = 1; s <= 3 * KEYS; s++) {
            step(b, kind, state, s, model);
        }
        KeyGroupsStateHandle handle = b.snapshot(1, new FileStreamFactory(dir)).write();

        // Scramble every byte of key groups 0..63 (after the header): a restore of 64..127 must not look.
        KeyGroupRange upper = new KeyGroupRange(64, 127);
        try (RandomAccessFile f = new RandomAccessFile(((FileStateHandle) handle.delegate()).path(), "rw")) {
            long from = handle.offsetOf(0);
            byte[] junk = new byte[(int) (handle.offsetOf(64) - from)];
            java.util.Arrays.fill(junk, (byte) 0xEE);
            f.seek(from);
            f.write(junk);
        }
        assertRestoredEquals(kind, upper, List.of(handle), model);
        // Sanity: the scrambled part really is unreadable.
        assertThatThrownBy(() -> backend(new KeyGroupRange(0, 63), List.of(handle))).isInstanceOf(IOException.class)
                .hasMessageContaining(((FileStateHandle) handle.delegate()).path()).hasMessageContaining("subtask 0");
    }

    @Test
    void restoreFromSeveralHandlesMergesTheirKeyGroups() throws Exception {
        Kind kind = Kind.VALUE;
        KeyedStateBackend low = backend(new KeyGroupRange(0, 63), List.of());
        KeyedStateBackend high = backend(new KeyGroupRange(64, 127), List.of());
        Object lowState = low.getState(kind.descriptor());
        Object highState = high.getState(kind.descriptor());
        Map<Long, Object> model = new HashMap<>();
        for (long s = 1; s <= 2 * KEYS; s++) {
            long k = s % KEYS;
            int kg = KeyHashVersion.LEGACY.keyGroupFor(key(k), MAX_PARALLELISM);
            KeyedStateBackend owner = kg < 64 ? low : high;
            owner.setCurrentKey(key(k), kg);
            kind.apply(kg < 64 ? lowState : highState, k, s, model);
        }
        List<KeyGroupsStateHandle> handles = List.of(low.snapshot(1, new FileStreamFactory(dir)).write(),
                high.snapshot(1, new FileStreamFactory(dir)).write());
        assertRestoredEquals(kind, ALL, handles, model);
        assertRestoredEquals(kind, new KeyGroupRange(32, 95), handles, model);
    }

    @Test
    void restoredStateNotYetRegisteredIsCarriedIntoTheNextSnapshot() throws Exception {
        KeyedStateBackend b = backend(ALL, List.of());
        Map<Long, Object> valueModel = new HashMap<>();
        Map<Long, Object> listModel = new HashMap<>();
        Object value = b.getState(Kind.VALUE.descriptor());
        Object list = b.getState(Kind.LIST.descriptor());
        for (long s = 1; s <= KEYS; s++) {
            step(b, Kind.VALUE, value, s, valueModel);
            step(b, Kind.LIST, list, s, listModel);
        }
        KeyGroupsStateHandle first = b.snapshot(1, new FileStreamFactory(dir)).write();

        KeyedStateBackend restored = backend(ALL, List.of(first));
        restored.getState(Kind.VALUE.descriptor()); // the list state is never registered
        KeyGroupsStateHandle second = restored.snapshot(2, new FileStreamFactory(dir)).write();

        assertRestoredEquals(Kind.LIST, ALL, List.of(second), listModel);
        assertRestoredEquals(Kind.VALUE, ALL, List.of(second), valueModel);
        assertThatThrownBy(() -> backend(ALL, List.of(second)).getState(new StateDescriptor.Value<>("list", Serializers.LONG)))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("checkpointed as LIST");
    }
}
