package io.weir.state.rocksdb;

import io.weir.api.FieldType;
import io.weir.api.Row;
import io.weir.api.RowSerializer;
import io.weir.api.Schema;
import io.weir.api.serialization.Serializers;
import io.weir.api.state.ListState;
import io.weir.api.state.MapState;
import io.weir.api.state.ReducingState;
import io.weir.api.state.StateDescriptor;
import io.weir.api.state.ValueState;
import io.weir.core.checkpoint.KeyGroupsStateHandle;
import io.weir.core.config.Configuration;
import io.weir.core.state.AsyncSnapshot;
import io.weir.core.state.KeyGroupAssignment;
import io.weir.core.state.KeyHashVersion;
import io.weir.core.state.KeyGroupRange;
import io.weir.core.state.KeyedStateBackend;
import io.weir.core.state.KeyedStateBackendParameters;
import io.weir.core.state.StateBackend;
import io.weir.state.heap.HeapStateBackend;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class RocksDBKeyedStateBackendTest {
    /** A variable-length key (string first) so key bytes of one key are never a prefix of another's by luck. */
    static final Schema KEY_SCHEMA = Schema.builder().field("name", FieldType.STRING).field("id", FieldType.LONG).build();
    static final int MAX_PARALLELISM = 128;
    static final int KEYS = 400;

    static final StateDescriptor.Value<String> VALUE = new StateDescriptor.Value<>("value", Serializers.STRING);
    static final StateDescriptor.List<Long> LIST = new StateDescriptor.List<>("list", Serializers.LONG);
    static final StateDescriptor.Map<String, Long> MAP = new StateDescriptor.Map<>("map", Serializers.STRING, Serializers.LONG);
    static final StateDescriptor.Reducing<Long> SUM = new StateDescriptor.Reducing<>("sum", Long::sum, Serializers.LONG);

    @TempDir
    Path local;

    private final List<KeyedStateBackend> open = new ArrayList<>();
    private final ExecutorService asyncPool = Executors.newSingleThreadExecutor();

    @AfterEach
    void closeAll() {
        open.forEach(KeyedStateBackend::close);
        asyncPool.shutdownNow();
    }

    static Row key(long id) {
        // names of different lengths: "k", "kk", ... share prefixes with each other
        return new Row(KEY_SCHEMA, "k".repeat((int) (id % 5) + 1), id);
    }

    static int keyGroup(long id) {
        return KeyHashVersion.LEGACY.keyGroupFor(key(id), MAX_PARALLELISM);
    }

    private KeyedStateBackend create(StateBackend type, KeyGroupRange range, List<KeyGroupsStateHandle> restore) throws Exception {
        KeyedStateBackend b = type.createKeyedStateBackend(new KeyedStateBackendParameters("job", "op", 0, MAX_PARALLELISM,
                range, new RowSerializer(KEY_SCHEMA), restore,
                Configuration.empty().with("state.backend.rocksdb.localdir", local.toString())));
        open.add(b);
        return b;
    }

    private KeyedStateBackend rocks(KeyGroupRange range, List<KeyGroupsStateHandle> restore) throws Exception {
        return create(new RocksDBStateBackend(), range, restore);
    }

    private static void setKey(KeyedStateBackend b, long id) {
        b.setCurrentKey(key(id), keyGroup(id));
    }

    /** Writes the model state of key {@code id}; {@link #assertModel} checks it, with values computed independently. */
    private static void writeModel(KeyedStateBackend b, long id) throws Exception {
        setKey(b, id);
        b.getState(VALUE).update("v" + id);
        ListState<Long> list = b.getState(LIST);
        list.add(id);
        list.add(id * 10);
        MapState<String, Long> map = b.getState(MAP);
        map.put("a", id);
        map.put("bb", id + 1);
        ReducingState<Long> sum = b.getState(SUM);
        sum.add(id);
        sum.add(3L);
    }

    private static void assertModel(KeyedStateBackend b, long id) {
        setKey(b, id);
        assertThat(b.getState(VALUE).value()).as("value of key %d", id).isEqualTo("v" + id);
        assertThat(b.getState(LIST).get()).as("list of key %d", id).containsExactly(id, id * 10);
        assertThat(b.getState(MAP).entries()).as("map of key %d", id).isEqualTo(Map.of("a", id, "bb", id + 1));
        assertThat(b.getState(SUM).get()).as("sum of key %d", id).isEqualTo(id + 3);
    }

    private KeyGroupsStateHandle snapshot(KeyedStateBackend b, long checkpointId) throws Exception {
        return b.snapshot(checkpointId, new MemoryStreamFactory()).write();
    }

    @Test
    void eachStateKindIsScopedToTheCurrentKey() throws Exception {
        KeyedStateBackend b = rocks(new KeyGroupRange(0, MAX_PARALLELISM - 1), List.of());
        setKey(b, 1);
        ValueState<String> value = b.getState(VALUE);
        ListState<Long> list = b.getState(LIST);
        MapState<String, Long> map = b.getState(MAP);
        ReducingState<Long> sum = b.getState(SUM);
        value.update("one");
        list.add(5L);
        list.add(6L);
        map.put("x", 1L);
        map.put("y", 2L);
        sum.add(4L);
        sum.add(5L);

        setKey(b, 2);
        assertThat(value.value()).isNull();
        assertThat(list.get()).isEmpty();
        assertThat(map.entries()).isEmpty();
        assertThat(map.get("x")).isNull();
        assertThat(sum.get()).isNull();
        map.put("x", 100L);

        setKey(b, 1);
        assertThat(value.value()).isEqualTo("one");
        assertThat(list.get()).containsExactly(5L, 6L);
        assertThat(map.entries()).isEqualTo(Map.of("x", 1L, "y", 2L));
        assertThat(map.contains("y")).isTrue();
        assertThat(sum.get()).isEqualTo(9L);

        map.remove("x");
        assertThat(map.entries()).isEqualTo(Map.of("y", 2L));
        map.clear();
        assertThat(map.entries()).isEmpty();
        list.update(List.of(7L));
        assertThat(list.get()).containsExactly(7L);
        list.update(List.of());
        assertThat(list.get()).isEmpty();
        value.update(null);
        assertThat(value.value()).isNull();
        sum.clear();
        assertThat(sum.get()).isNull();

        setKey(b, 2);
        assertThat(map.entries()).as("clearing key 1's map left key 2's alone").isEqualTo(Map.of("x", 100L));
    }

    @Test
    void sameNameAsAnotherKindIsRejected() throws Exception {
        KeyedStateBackend b = rocks(new KeyGroupRange(0, MAX_PARALLELISM - 1), List.of());
        b.getState(VALUE);
        assertThatThrownBy(() -> b.getState(new StateDescriptor.List<>("value", Serializers.LONG)))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("registered as VALUE, requested as LIST");
    }

    @Test
    void keyGroupOutsideTheRangeIsRejected() throws Exception {
        KeyedStateBackend b = rocks(new KeyGroupRange(0, 9), List.of());
        assertThatThrownBy(() -> b.setCurrentKey(key(1), 10)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("key group 10").hasMessageContaining("outside");
    }

    @Test
    void snapshotRestoresEveryKindOfState() throws Exception {
        KeyedStateBackend b = rocks(new KeyGroupRange(0, MAX_PARALLELISM - 1), List.of());
        for (long id = 0; id < KEYS; id++) {
            writeModel(b, id);
        }
        KeyGroupsStateHandle handle = snapshot(b, 1);
        KeyedStateBackend restored = rocks(new KeyGroupRange(0, MAX_PARALLELISM - 1), List.of(handle));
        for (long id = 0; id < KEYS; id++) {
            assertModel(restored, id);
        }
        assertThat(((RocksDBKeyedStateBackend) restored).rowCount("map")).isEqualTo(2L * KEYS);
    }

    @Test
    void emptyBackendSnapshotsToNull() throws Exception {
        KeyedStateBackend b = rocks(new KeyGroupRange(0, MAX_PARALLELISM - 1), List.of());
        b.getState(VALUE);
        assertThat(snapshot(b, 1)).isNull();
    }

    @Test
    void snapshotHoldsTheValuesOfItsSynchronousPart() throws Exception {
        KeyedStateBackend b = rocks(new KeyGroupRange(0, MAX_PARALLELISM - 1), List.of());
        for (long id = 0; id < KEYS; id++) {
            writeModel(b, id);
        }
        AsyncSnapshot<KeyGroupsStateHandle> async = b.snapshot(1, new MemoryStreamFactory());
        // changes after the synchronous part must not show in this snapshot
        for (long id = 0; id < KEYS; id++) {
            setKey(b, id);
            b.getState(VALUE).update("changed");
            b.getState(LIST).add(-1L);
            b.getState(MAP).clear();
            b.getState(SUM).clear();
        }
        setKey(b, KEYS + 1);
        b.getState(VALUE).update("new key");
        KeyedStateBackend restored = rocks(new KeyGroupRange(0, MAX_PARALLELISM - 1), List.of(async.write()));
        for (long id = 0; id < KEYS; id++) {
            assertModel(restored, id);
        }
        setKey(restored, KEYS + 1);
        assertThat(restored.getState(VALUE).value()).isNull();
    }

    @Test
    void closeWhileASnapshotIsWrittenKeepsTheDbUntilItIsDoneThenDeletesTheDirectory() throws Exception {
        RocksDBKeyedStateBackend b = (RocksDBKeyedStateBackend) rocks(new KeyGroupRange(0, MAX_PARALLELISM - 1), List.of());
        for (long id = 0; id < KEYS; id++) {
            writeModel(b, id);
        }
        CountDownLatch gate = new CountDownLatch(1);
        MemoryStreamFactory streams = new MemoryStreamFactory(gate);
        AsyncSnapshot<KeyGroupsStateHandle> async = b.snapshot(1, streams);
        Future<KeyGroupsStateHandle> written = asyncPool.submit(async::write);
        assertThat(streams.writing.await(30, TimeUnit.SECONDS)).isTrue();
        b.close();
        assertThat(Files.exists(b.directory())).as("directory kept while the snapshot is written").isTrue();
        assertThatThrownBy(() -> b.getState(VALUE)).isInstanceOf(IllegalStateException.class).hasMessageContaining("closed");
        gate.countDown();
        KeyGroupsStateHandle handle = written.get(30, TimeUnit.SECONDS);
        assertThat(Files.exists(b.directory())).as("directory deleted after the last snapshot").isFalse();
        KeyedStateBackend restored = rocks(new KeyGroupRange(0, MAX_PARALLELISM - 1), List.of(handle));
        for (long id = 0; id < KEYS; id++) {
            assertModel(restored, id);
        }
    }

    @Test
    void closeDeletesTheWorkingDirectoryUnderTheConfiguredLocalDir() throws Exception {
        RocksDBKeyedStateBackend b = (RocksDBKeyedStateBackend) rocks(new KeyGroupRange(0, 9), List.of());
        assertThat(b.directory().getParent()).isEqualTo(local);
        assertThat(b.directory().getFileName().toString()).startsWith("weir-rocksdb-job-op-0-");
        b.close();
        assertThat(Files.exists(b.directory())).isFalse();
    }


    @Test
    void unregisteredRestoredStateIsCarriedIntoTheNextSnapshot() throws Exception {
        KeyedStateBackend b = rocks(new KeyGroupRange(0, MAX_PARALLELISM - 1), List.of());
        for (long id = 0; id < KEYS; id++) {
            writeModel(b, id);
        }
        KeyedStateBackend middle = rocks(new KeyGroupRange(0, MAX_PARALLELISM - 1), List.of(snapshot(b, 1)));
        setKey(middle, 0);
        middle.getState(VALUE).value(); // only VALUE is registered; the others stay serialized
        KeyedStateBackend last = rocks(new KeyGroupRange(0, MAX_PARALLELISM - 1), List.of(snapshot(middle, 2)));
        for (long id = 0; id < KEYS; id++) {
            assertModel(last, id);
        }
    }

    /** Restores {@code handles} into backends for {@code parallelism} subtasks and checks every key in its owner. */
    private List<KeyGroupsStateHandle> rescaleAndCheck(StateBackend type, List<KeyGroupsStateHandle> handles, int parallelism)
            throws Exception {
        List<KeyedStateBackend> backends = new ArrayList<>();
        for (int i = 0; i < parallelism; i++) {
            backends.add(create(type, KeyGroupAssignment.rangeForSubtask(MAX_PARALLELISM, parallelism, i), handles));
        }
        for (long id = 0; id < KEYS; id++) {
            int owner = KeyGroupAssignment.subtaskForKeyGroup(keyGroup(id), MAX_PARALLELISM, parallelism);
            assertModel(backends.get(owner), id);
        }
        List<KeyGroupsStateHandle> next = new ArrayList<>();
        for (KeyedStateBackend b : backends) {
            next.add(snapshot(b, 2));
        }
        return next;
    }

    private List<KeyGroupsStateHandle> writeWithParallelism(StateBackend type, int parallelism) throws Exception {
        List<KeyedStateBackend> backends = new ArrayList<>();
        for (int i = 0; i < parallelism; i++) {
            backends.add(create(type, KeyGroupAssignment.rangeForSubtask(MAX_PARALLELISM, parallelism, i), List.of()));
        }
        for (long id = 0; id < KEYS; id++) {
            writeModel(backends.get(KeyGroupAssignment.subtaskForKeyGroup(keyGroup(id), MAX_PARALLELISM, parallelism)), id);
        }
        List<KeyGroupsStateHandle> handles = new ArrayList<>();
        for (KeyedStateBackend b : backends) {
            handles.add(snapshot(b, 1));
        }
        return handles;
    }

    @Test
    void rescalesTwoToThreeAndThreeToOne() throws Exception {
        List<KeyGroupsStateHandle> fromTwo = writeWithParallelism(new RocksDBStateBackend(), 2);
        List<KeyGroupsStateHandle> fromThree = rescaleAndCheck(new RocksDBStateBackend(), fromTwo, 3);
        assertThat(fromThree).hasSize(3);
        rescaleAndCheck(new RocksDBStateBackend(), fromThree, 1);
    }

    @Test
    void snapshotOfTheHeapBackendRestoresOnRocksDbWithRescaling() throws Exception {
        List<KeyGroupsStateHandle> heap = writeWithParallelism(new HeapStateBackend(), 2);
        rescaleAndCheck(new RocksDBStateBackend(), heap, 3);
    }

    @Test
    void snapshotOfRocksDbRestoresOnTheHeapBackendWithRescaling() throws Exception {
        List<KeyGroupsStateHandle> rocks = writeWithParallelism(new RocksDBStateBackend(), 3);
        List<KeyGroupsStateHandle> heapAgain = rescaleAndCheck(new HeapStateBackend(), rocks, 2);
        // and back: heap → RocksDB → heap round trip
        rescaleAndCheck(new RocksDBStateBackend(), heapAgain, 1);
    }
}
