package io.weir.state.rocksdb;

import io.weir.api.serialization.TypeSerializer;
import io.weir.api.state.StateDescriptor;
import io.weir.api.state.ValueState;
import io.weir.core.checkpoint.KeyGroupsStateHandle;
import io.weir.core.config.Configuration;
import io.weir.core.state.AsyncSnapshot;
import io.weir.core.state.KeyGroupRange;
import io.weir.core.state.KeyedStateBackend;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.io.TempDir;

import java.io.DataInput;
import java.io.DataOutput;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static io.weir.state.rocksdb.RocksDBKeyedStateBackendTest.LIST;
import static io.weir.state.rocksdb.RocksDBKeyedStateBackendTest.MAX_PARALLELISM;
import static io.weir.state.rocksdb.RocksDBKeyedStateBackendTest.SUM;
import static io.weir.state.rocksdb.RocksDBKeyedStateBackendTest.VALUE;
import static io.weir.state.rocksdb.RocksDBKeyedStateBackendTest.key;
import static io.weir.state.rocksdb.RocksDBKeyedStateBackendTest.keyGroup;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The write-back state cache of value and reducing state ({@code state.backend.rocksdb.state-cache.size}):
 * evictions, updates and clears of cached keys, and changes made after the synchronous part of a snapshot,
 * against an expected model kept by the test; a snapshot (full or incremental) restores exactly the values as
 * of its synchronous part. Cache size 0 (off) is the reference behaviour.
 */
class RocksDBStateCacheTest {
    private static final KeyGroupRange ALL = new KeyGroupRange(0, MAX_PARALLELISM - 1);
    private static final int KEYS = 200;

    @TempDir
    Path local;

    private final List<KeyedStateBackend> open = new ArrayList<>();

    @AfterEach
    void closeAll() {
        open.forEach(KeyedStateBackend::close);
    }

    private KeyedStateBackend rocks(int cacheSize, boolean incremental, List<KeyGroupsStateHandle> restore) throws Exception {
        KeyedStateBackend b = TestBackends.create(new RocksDBStateBackend(), local, ALL, restore, Configuration.empty()
                .with("state.backend.incremental", incremental).with("state.backend.rocksdb.state-cache.size", cacheSize));
        open.add(b);
        return b;
    }

    private static void set(KeyedStateBackend b, long id, String value, Map<Long, String> expected) throws Exception {
        b.setCurrentKey(key(id), keyGroup(id));
        b.getState(VALUE).update(value);
        if (value == null) {
            expected.remove(id);
        } else {
            expected.put(id, value);
        }
        b.getState(SUM).add(id);
    }

    private static void assertState(KeyedStateBackend b, Map<Long, String> values, Map<Long, Long> sums) {
        for (long id = 0; id < KEYS; id++) {
            b.setCurrentKey(key(id), keyGroup(id));
            assertThat(b.getState(VALUE).value()).as("value of key %d", id).isEqualTo(values.get(id));
            assertThat(b.getState(SUM).get()).as("sum of key %d", id).isEqualTo(sums.get(id));
        }
    }

    @ParameterizedTest(name = "cache size {0}, incremental {1}")
    @CsvSource({"0, true", "0, false", "1, true", "7, true", "7, false", "100000, true", "100000, false"})
    void snapshotHoldsTheValuesAsOfItsSynchronousPartWhateverTheCacheEvictedOrHeld(int cacheSize, boolean incremental)
            throws Exception {
        KeyedStateBackend b = rocks(cacheSize, incremental, List.of());
        Map<Long, String> values = new HashMap<>();
        Map<Long, Long> sums = new HashMap<>();
        // three passes over all keys: with a small cache every key is evicted (written back) several times
        for (int pass = 0; pass < 3; pass++) {
            for (long id = 0; id < KEYS; id++) {
                set(b, id, "v" + pass + "-" + id, values);
                sums.merge(id, id, Long::sum);
            }
        }
        for (long id = 0; id < KEYS; id += 3) {
            b.setCurrentKey(key(id), keyGroup(id));
            b.getState(VALUE).clear(); // cleared while cached or after eviction
            values.remove(id);
        }
        for (long id = 0; id < KEYS; id += 6) {
            set(b, id, "again-" + id, values); // set again after the clear
            sums.merge(id, id, Long::sum);
        }
        for (long id = 1; id < KEYS; id += 10) {
            b.setCurrentKey(key(id), keyGroup(id));
            b.getState(SUM).clear();
            sums.remove(id);
        }
        // reads through the cache see the same as the model before any snapshot
        assertState(b, values, sums);

        MemoryStreamFactory streams = incremental ? MemoryStreamFactory.withSharedState() : new MemoryStreamFactory();
        AsyncSnapshot<KeyGroupsStateHandle> snapshot = b.snapshot(1, streams);
        Map<Long, String> valuesAtSnapshot = new HashMap<>(values);
        Map<Long, Long> sumsAtSnapshot = new HashMap<>(sums);
        // after the synchronous part, before the asynchronous part: none of this may reach the snapshot
        for (long id = 0; id < KEYS; id += 2) {
            set(b, id, id % 4 == 0 ? null : "after-" + id, values);
            sums.merge(id, id, Long::sum);
        }
        KeyGroupsStateHandle handle = snapshot.write();
        assertThat(handle.isIncremental()).isEqualTo(incremental);
        assertState(b, values, sums);

        KeyedStateBackend restored = rocks(cacheSize, incremental, List.of(handle));
        assertState(restored, valuesAtSnapshot, sumsAtSnapshot);
    }

    /** A mutable value, in {@link DataOutput#writeUTF} form; {@link #copy} makes a new builder. */
    static final TypeSerializer<StringBuilder> BUILDER = new TypeSerializer<>() {
        @Override
        public void serialize(StringBuilder value, DataOutput out) throws IOException {
            out.writeUTF(value.toString());
        }

        @Override
        public StringBuilder deserialize(DataInput in) throws IOException {
            return new StringBuilder(in.readUTF());
        }

        @Override
        public StringBuilder copy(StringBuilder value) {
            return new StringBuilder(value);
        }
    };

    /** A value state of mutable values. */
    static final StateDescriptor.Value<StringBuilder> BUILDER_STATE = new StateDescriptor.Value<>("builder", BUILDER);

    /** Appends {@code suffix} to key {@code id}'s builder in place: value(), append, update(). */
    static void append(KeyedStateBackend b, long id, String suffix) {
        b.setCurrentKey(key(id), keyGroup(id));
        ValueState<StringBuilder> state = b.getState(BUILDER_STATE);
        StringBuilder v = state.value();
        state.update(v == null ? new StringBuilder(suffix) : v.append(suffix));
    }

    /** @return key {@code id}'s builder as a string, or null */
    static String builderOf(KeyedStateBackend b, long id) {
        b.setCurrentKey(key(id), keyGroup(id));
        StringBuilder v = b.getState(BUILDER_STATE).value();
        return v == null ? null : v.toString();
    }

    /**
     * A value changed in place (read-modify-write) after the synchronous part of a snapshot must not reach it: the
     * cache hands the snapshot the values by reference and writes them later, so it must copy before the change.
     */
    @ParameterizedTest(name = "cache size {0}, incremental {1}")
    @CsvSource({"0, true", "7, true", "7, false", "100000, true", "100000, false"})
    void aValueChangedInPlaceAfterTheSynchronousPartIsNotInTheSnapshot(int cacheSize, boolean incremental)
            throws Exception {
        KeyedStateBackend b = rocks(cacheSize, incremental, List.of());
        for (long id = 0; id < KEYS; id++) {
            append(b, id, "a" + id);
        }
        MemoryStreamFactory streams = incremental ? MemoryStreamFactory.withSharedState() : new MemoryStreamFactory();
        AsyncSnapshot<KeyGroupsStateHandle> snapshot = b.snapshot(1, streams);
        for (long id = 0; id < KEYS; id++) {
            append(b, id, "-after");
        }
        KeyGroupsStateHandle handle = snapshot.write();

        KeyedStateBackend restored = rocks(cacheSize, incremental, List.of(handle));
        for (long id = 0; id < KEYS; id++) {
            assertThat(builderOf(restored, id)).as("key %d", id).isEqualTo("a" + id);
            assertThat(builderOf(b, id)).as("live key %d", id).isEqualTo("a" + id + "-after");
        }
    }

    @ParameterizedTest(name = "cache size {0}")
    @CsvSource({"1", "7", "100000"})
    void cachedWritesReachRocksDbBeforeTheSnapshotAndEvictionsBefore(int cacheSize) throws Exception {
        RocksDBKeyedStateBackend b = (RocksDBKeyedStateBackend) rocks(cacheSize, true, List.of());
        Map<Long, String> values = new HashMap<>();
        for (long id = 0; id < KEYS; id++) {
            set(b, id, "v" + id, values);
        }
        // everything beyond the cache's capacity was written back on eviction; the rest is on the heap only
        assertThat(b.rowCount(VALUE.name())).isEqualTo(Math.max(0, KEYS - cacheSize));
        b.snapshot(1, MemoryStreamFactory.withSharedState()).write();
        assertThat(b.rowCount(VALUE.name())).as("written back by the snapshot").isEqualTo(KEYS);
    }

    @Test
    void nativeCheckpointIsMadeByTheTaskThreadBeforeItsNextWriteAndHoldsNothingWrittenAfterTheBarrier() throws Exception {
        RocksDBKeyedStateBackend b = (RocksDBKeyedStateBackend) rocks(4, true, List.of());
        Map<Long, String> values = new HashMap<>();
        Map<Long, Long> sums = new HashMap<>();
        for (long id = 0; id < KEYS; id++) {
            set(b, id, "v" + id, values);
            sums.put(id, id);
            b.getState(LIST).add(id);
        }
        Path chk = b.directory().resolve("chk-1");
        AsyncSnapshot<KeyGroupsStateHandle> snapshot = b.snapshot(1, MemoryStreamFactory.withSharedState());
        assertThat(chk).as("no native checkpoint in the synchronous part").doesNotExist();

        // a cache hit (key 199 is among the 4 cached) and a miss (key 0 was evicted): reads only
        b.setCurrentKey(key(KEYS - 1), keyGroup(KEYS - 1));
        assertThat(b.getState(VALUE).value()).isEqualTo("v" + (KEYS - 1));
        b.setCurrentKey(key(0), keyGroup(0));
        assertThat(b.getState(VALUE).value()).isEqualTo("v0");
        b.getState(VALUE).update("after-0"); // cached: no write to RocksDB yet
        assertThat(chk).as("reads and cached updates leave the checkpoint to the asynchronous part").doesNotExist();

        b.getState(LIST).add(-1L); // a write to RocksDB after the barrier
        assertThat(chk).as("made by the task thread before its write").isDirectory();

        KeyGroupsStateHandle handle = snapshot.write();
        assertThat(chk).as("deleted once uploaded").doesNotExist();
        KeyedStateBackend restored = rocks(4, true, List.of(handle));
        assertState(restored, values, sums);
        restored.setCurrentKey(key(0), keyGroup(0));
        assertThat(restored.getState(LIST).get()).as("without the element added after the barrier").containsExactly(0L);
    }

    @Test
    void aSnapshotWhoseAsynchronousPartNeverRanDoesNotBlockTheNextOne() throws Exception {
        RocksDBKeyedStateBackend b = (RocksDBKeyedStateBackend) rocks(100_000, true, List.of());
        Map<Long, String> values = new HashMap<>();
        Map<Long, Long> sums = new HashMap<>();
        for (long id = 0; id < KEYS; id++) {
            set(b, id, "v" + id, values);
            sums.put(id, id);
        }
        b.snapshot(1, MemoryStreamFactory.withSharedState()); // its asynchronous part is dropped (e.g. aborted before it ran)
        set(b, 7, "after-1", values);
        sums.merge(7L, 7L, Long::sum);
        KeyGroupsStateHandle two = b.snapshot(2, MemoryStreamFactory.withSharedState()).write();
        assertThat(Files.exists(b.directory().resolve("chk-2"))).isFalse();
        assertState(rocks(100_000, true, List.of(two)), values, sums);
    }
}
