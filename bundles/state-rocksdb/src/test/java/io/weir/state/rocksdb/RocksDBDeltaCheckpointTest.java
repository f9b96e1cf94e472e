package io.weir.state.rocksdb;

import io.weir.core.checkpoint.KeyGroupsStateHandle;
import io.weir.core.checkpoint.SharedFileHandle;
import io.weir.core.config.Configuration;
import io.weir.core.state.AsyncSnapshot;
import io.weir.core.state.KeyGroupRange;
import io.weir.core.state.KeyedStateBackend;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
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
 * Delta checkpoints (docs/state-rocksdb.md): an incremental checkpoint taken while the DB was not written since the
 * native checkpoint of a completed one carries the state caches' dirty values over that checkpoint's files instead
 * of writing them back, flushing and uploading an SST. Against a model kept by the test: restores (same and other
 * key-group ranges) give exactly the values as of the synchronous part; anything that may have changed the DB, a
 * base not known to be complete, or values that stopped changing make a native checkpoint again.
 */
class RocksDBDeltaCheckpointTest {
    private static final KeyGroupRange ALL = new KeyGroupRange(0, MAX_PARALLELISM - 1);
    private static final int KEYS = 200;

    @TempDir
    Path local;

    private final List<KeyedStateBackend> open = new ArrayList<>();
    private final Map<Long, String> values = new HashMap<>();
    private final Map<Long, Long> sums = new HashMap<>();

    @AfterEach
    void closeAll() {
        open.forEach(KeyedStateBackend::close);
    }

    private KeyedStateBackend rocks(KeyGroupRange range, int cacheSize, List<KeyGroupsStateHandle> restore) throws Exception {
        KeyedStateBackend b = TestBackends.create(new RocksDBStateBackend(), local, range, restore, Configuration.empty()
                .with("state.backend.incremental", true).with("state.backend.rocksdb.state-cache.size", cacheSize));
        open.add(b);
        return b;
    }

    /** Sets key {@code id}'s value (null: clears it) and adds {@code id} to its sum, in the backend and the model. */
    private void change(KeyedStateBackend b, long id, String value) throws Exception {
        b.setCurrentKey(key(id), keyGroup(id));
        b.getState(VALUE).update(value);
        if (value == null) {
            values.remove(id);
        } else {
            values.put(id, value);
        }
        b.getState(SUM).add(id);
        sums.merge(id, id, Long::sum);
    }

    private void changeAll(KeyedStateBackend b, String round) throws Exception {
        for (long id = 0; id < KEYS; id++) {
            change(b, id, id % 9 == 4 ? null : round + "-" + id);
        }
    }

    /** Asserts every key of {@code range} against the model as it was. */
    private static void assertState(KeyedStateBackend b, KeyGroupRange range, Map<Long, String> values, Map<Long, Long> sums) {
        int checked = 0;
        for (long id = 0; id < KEYS; id++) {
            if (!range.contains(keyGroup(id))) {
                continue;
            }
            b.setCurrentKey(key(id), keyGroup(id));
            assertThat(b.getState(VALUE).value()).as("value of key %d", id).isEqualTo(values.get(id));
            assertThat(b.getState(SUM).get()).as("sum of key %d", id).isEqualTo(sums.get(id));
            checked++;
        }
        assertThat(checked).as("keys in %s", range).isPositive();
    }

    /** Takes checkpoint {@code id} with its own stream factory, writes it and confirms it. */
    private static KeyGroupsStateHandle checkpoint(KeyedStateBackend b, long id, MemoryStreamFactory streams) throws Exception {
        KeyGroupsStateHandle handle = b.snapshot(id, streams).write();
        b.notifyCheckpointComplete(id);
        return handle;
    }

    /** Takes and confirms checkpoint {@code id}, asserting that it uploaded SST files (a native checkpoint). */
    private static KeyGroupsStateHandle nativeCheckpoint(KeyedStateBackend b, long id) throws Exception {
        MemoryStreamFactory streams = MemoryStreamFactory.withSharedState();
        KeyGroupsStateHandle handle = checkpoint(b, id, streams);
        assertThat(streams.sharedCreated.get()).as("SST files uploaded by checkpoint %d", id).isPositive();
        return handle;
    }

    /** Takes and confirms checkpoint {@code id}, asserting that it uploaded no SST file (a delta checkpoint). */
    private static KeyGroupsStateHandle deltaCheckpoint(KeyedStateBackend b, long id) throws Exception {
        MemoryStreamFactory streams = MemoryStreamFactory.withSharedState();
        KeyGroupsStateHandle handle = checkpoint(b, id, streams);
        assertThat(streams.sharedCreated.get()).as("SST files uploaded by checkpoint %d", id).isZero();
        return handle;
    }

    private static List<String> sstNames(KeyGroupsStateHandle h) {
        return h.sharedFiles().stream().map(SharedFileHandle::name).toList();
    }

    @Test
    void deltaCheckpointUploadsNoSstAndRestoresTheValuesAsOfItsSynchronousPartAtAnyParallelism() throws Exception {
        KeyedStateBackend b = rocks(ALL, 100_000, List.of());
        changeAll(b, "one");
        KeyGroupsStateHandle one = checkpoint(b, 1, MemoryStreamFactory.withSharedState());

        changeAll(b, "two"); // every dirty value changed since checkpoint 1: a delta pays
        MemoryStreamFactory streams = MemoryStreamFactory.withSharedState();
        AsyncSnapshot<KeyGroupsStateHandle> snapshot = b.snapshot(2, streams);
        Map<Long, String> valuesAtTwo = new HashMap<>(values);
        Map<Long, Long> sumsAtTwo = new HashMap<>(sums);
        changeAll(b, "after"); // after the synchronous part: must not reach checkpoint 2
        KeyGroupsStateHandle two = snapshot.write();

        assertThat(streams.sharedCreated.get()).as("SST files uploaded by the delta checkpoint").isZero();
        assertThat(sstNames(two)).as("refers to checkpoint 1's files").isEqualTo(sstNames(one));
        assertThat(two.sharedFiles()).allMatch(f -> f.uploadedBy() == 1);
        assertState(b, ALL, values, sums);

        assertState(rocks(ALL, 100_000, List.of(two)), ALL, valuesAtTwo, sumsAtTwo);
        assertState(rocks(ALL, 0, List.of(two)), ALL, valuesAtTwo, sumsAtTwo);
        KeyGroupRange low = new KeyGroupRange(0, 40);
        KeyGroupRange high = new KeyGroupRange(41, MAX_PARALLELISM - 1);
        assertState(rocks(low, 100_000, List.of(two)), low, valuesAtTwo, sumsAtTwo);
        assertState(rocks(high, 100_000, List.of(two)), high, valuesAtTwo, sumsAtTwo);
    }

    /** The delta's values are taken by reference and serialized by the asynchronous part: an in-place change must copy. */
    @Test
    void aValueChangedInPlaceAfterTheSynchronousPartIsNotInTheDelta() throws Exception {
        KeyedStateBackend b = rocks(ALL, 100_000, List.of());
        for (long id = 0; id < KEYS; id++) {
            RocksDBStateCacheTest.append(b, id, "a" + id);
        }
        checkpoint(b, 1, MemoryStreamFactory.withSharedState());
        for (long id = 0; id < KEYS; id++) {
            RocksDBStateCacheTest.append(b, id, "-b"); // every value dirty again: a delta pays
        }
        MemoryStreamFactory streams = MemoryStreamFactory.withSharedState();
        AsyncSnapshot<KeyGroupsStateHandle> snapshot = b.snapshot(2, streams);
        for (long id = 0; id < KEYS; id++) {
            RocksDBStateCacheTest.append(b, id, "-after");
        }
        KeyGroupsStateHandle two = snapshot.write();

        assertThat(streams.sharedCreated.get()).as("SST files uploaded: not a delta").isZero();
        KeyedStateBackend restored = rocks(ALL, 100_000, List.of(two));
        for (long id = 0; id < KEYS; id++) {
            assertThat(RocksDBStateCacheTest.builderOf(restored, id)).as("key %d", id).isEqualTo("a" + id + "-b");
        }
    }

    @Test
    void deltaCheckpointRefersToItsBasesManifestAndOptionsInsteadOfWritingThemAgain() throws Exception {
        KeyedStateBackend b = rocks(ALL, 100_000, List.of());
        changeAll(b, "one");
        KeyGroupsStateHandle one = nativeCheckpoint(b, 1);
        changeAll(b, "two");
        KeyGroupsStateHandle two = deltaCheckpoint(b, 2);

        List<String> baseFiles = sstNames(one).stream().filter(n -> !n.endsWith(".sst")).toList();
        assertThat(baseFiles).as("checkpoint 1's shared files besides the SSTs")
                .anyMatch(n -> n.startsWith("MANIFEST-")).anyMatch(n -> n.startsWith("OPTIONS-")).contains("CURRENT");
        assertThat(sstNames(two)).as("checkpoint 2 refers to them").containsAll(baseFiles);
        assertThat(two.sharedFiles()).allMatch(f -> f.uploadedBy() == 1);
        for (KeyGroupsStateHandle h : List.of(one, two)) {
            try (DataInputStream in = new DataInputStream(h.delegate().open())) {
                assertThat(IncrementalFormat.read(in).files()).as("files in the private stream").isEmpty();
            }
        }
        assertThat(two.checkpointedSize(2)).as("what the delta wrote: its private stream only")
                .isEqualTo(two.delegate().size());
        assertState(rocks(ALL, 100_000, List.of(two)), ALL, values, sums);
    }

    @Test
    void deltaCheckpointsOfTwoSubtasksRestoreIntoOne() throws Exception {
        KeyGroupRange low = new KeyGroupRange(0, 40);
        KeyGroupRange high = new KeyGroupRange(41, MAX_PARALLELISM - 1);
        KeyedStateBackend a = rocks(low, 100_000, List.of());
        KeyedStateBackend b = rocks(high, 100_000, List.of());
        List<KeyGroupsStateHandle> handles = new ArrayList<>();
        for (KeyedStateBackend subtask : List.of(a, b)) {
            KeyGroupRange range = subtask == a ? low : high;
            for (long id = 0; id < KEYS; id++) {
                if (range.contains(keyGroup(id))) {
                    change(subtask, id, "one-" + id);
                }
            }
            checkpoint(subtask, 1, MemoryStreamFactory.withSharedState());
            for (long id = 0; id < KEYS; id++) {
                if (range.contains(keyGroup(id))) {
                    change(subtask, id, id % 7 == 0 ? null : "two-" + id);
                }
            }
            handles.add(deltaCheckpoint(subtask, 2));
        }
        // one handle is opened in place, the other's rows and delta are copied in
        assertState(rocks(ALL, 100_000, handles), ALL, values, sums);
    }

    /** @return a backend after native checkpoint 1 and delta checkpoint 2 (both completed), every value changed in each */
    private KeyedStateBackend afterNativeAndDelta() throws Exception {
        KeyedStateBackend b = rocks(ALL, 100_000, List.of());
        changeAll(b, "one");
        checkpoint(b, 1, MemoryStreamFactory.withSharedState());
        changeAll(b, "two");
        deltaCheckpoint(b, 2);
        return b;
    }

    @Test
    void deltaCheckpointsInARowEachCarryEveryValueSinceTheirBase() throws Exception {
        KeyedStateBackend b = afterNativeAndDelta();
        for (long id = 0; id < KEYS; id += 2) {
            change(b, id, "three-" + id); // half of the dirty values: still a delta
        }
        KeyGroupsStateHandle three = deltaCheckpoint(b, 3);
        // restoring 3 alone must give checkpoint 2's values of the keys not changed since (not 1's)
        KeyedStateBackend restored = rocks(ALL, 100_000, List.of(three));
        assertState(restored, ALL, values, sums);
        // and the restored backend's first checkpoint is a native one of everything
        KeyGroupsStateHandle four = nativeCheckpoint(restored, 4);
        assertState(rocks(ALL, 100_000, List.of(four)), ALL, values, sums);
    }

    @Test
    void aWriteToRocksDbAfterTheBaseMakesTheNextCheckpointANativeOne() throws Exception {
        KeyedStateBackend b = rocks(ALL, 100_000, List.of());
        changeAll(b, "one");
        KeyGroupsStateHandle one = checkpoint(b, 1, MemoryStreamFactory.withSharedState());
        changeAll(b, "two");
        b.setCurrentKey(key(3), keyGroup(3));
        b.getState(LIST).add(33L); // list state lives in RocksDB only: the DB is no longer checkpoint 1's
        KeyGroupsStateHandle two = nativeCheckpoint(b, 2);
        assertThat(sstNames(two)).isNotEqualTo(sstNames(one));
        KeyedStateBackend restored = rocks(ALL, 100_000, List.of(two));
        assertState(restored, ALL, values, sums);
        restored.setCurrentKey(key(3), keyGroup(3));
        assertThat(restored.getState(LIST).get()).containsExactly(33L);
    }

    @Test
    void anEvictionAfterTheDeltaCheckpointLeavesItIntactAndMakesTheNextOneNative() throws Exception {
        KeyedStateBackend b = rocks(ALL, KEYS, List.of());
        changeAll(b, "one");
        checkpoint(b, 1, MemoryStreamFactory.withSharedState());
        changeAll(b, "two");
        MemoryStreamFactory deltaStreams = MemoryStreamFactory.withSharedState();
        AsyncSnapshot<KeyGroupsStateHandle> snapshot = b.snapshot(2, deltaStreams);
        Map<Long, String> valuesAtTwo = new HashMap<>(values);
        Map<Long, Long> sumsAtTwo = new HashMap<>(sums);
        for (long id = KEYS; id < 2 * KEYS; id++) {
            b.setCurrentKey(key(id), keyGroup(id));
            b.getState(VALUE).update("new-" + id); // fills the cache: the dirty values of 0..199 are evicted to RocksDB
        }
        KeyGroupsStateHandle two = snapshot.write();
        b.notifyCheckpointComplete(2);
        assertThat(deltaStreams.sharedCreated.get()).isZero();
        assertState(rocks(ALL, 100_000, List.of(two)), ALL, valuesAtTwo, sumsAtTwo);

        KeyGroupsStateHandle three = nativeCheckpoint(b, 3); // the evictions wrote RocksDB
        KeyedStateBackend restored = rocks(ALL, 100_000, List.of(three));
        assertState(restored, ALL, values, sums);
        restored.setCurrentKey(key(KEYS + 5), keyGroup(KEYS + 5));
        assertThat(restored.getState(VALUE).value()).isEqualTo("new-" + (KEYS + 5));
    }

    @Test
    void valuesThatStoppedChangingAreWrittenBackByANativeCheckpoint() throws Exception {
        KeyedStateBackend b = afterNativeAndDelta();
        for (long id = 0; id < 10; id++) {
            change(b, id, "three-" + id); // 10 changed of 200 dirty: carrying 190 unchanged values again does not pay
        }
        KeyGroupsStateHandle three = nativeCheckpoint(b, 3);
        assertState(rocks(ALL, 100_000, List.of(three)), ALL, values, sums);

        changeAll(b, "four"); // after the native checkpoint 3 completed: a delta over it
        KeyGroupsStateHandle four = deltaCheckpoint(b, 4);
        assertThat(sstNames(four)).isEqualTo(sstNames(three));
        assertState(rocks(ALL, 100_000, List.of(four)), ALL, values, sums);
    }

    @Test
    void turnedOffEveryIncrementalCheckpointIsNative() throws Exception {
        KeyedStateBackend b = TestBackends.create(new RocksDBStateBackend(), local, ALL, List.of(), Configuration.empty()
                .with("state.backend.incremental", true).with("state.backend.rocksdb.delta-checkpoints", false));
        open.add(b);
        changeAll(b, "one");
        checkpoint(b, 1, MemoryStreamFactory.withSharedState());
        changeAll(b, "two");
        assertState(rocks(ALL, 100_000, List.of(nativeCheckpoint(b, 2))), ALL, values, sums);
    }

    @Test
    void aBaseNotKnownToBeCompleteIsNotUsed() throws Exception {
        KeyedStateBackend b = rocks(ALL, 100_000, List.of());
        changeAll(b, "one");
        b.snapshot(1, MemoryStreamFactory.withSharedState()).write(); // written, but its completion never notified
        changeAll(b, "two");
        KeyGroupsStateHandle two = nativeCheckpoint(b, 2); // checkpoint 1 may still be aborted: all files again
        assertThat(two.sharedFiles()).allMatch(f -> f.uploadedBy() == 2);
        assertState(rocks(ALL, 100_000, List.of(two)), ALL, values, sums);
    }

    @Test
    void formatRoundTripsTheDeltaAndReadsVersion1() throws Exception {
        IncrementalFormat.Delta delta = new IncrementalFormat.Delta("value",
                new byte[][] {{0, 1, 7}, {0, 2, 8, 9}}, new byte[][] {{42}, null});
        IncrementalFormat format = new IncrementalFormat(5, Map.of("value", StateKind.VALUE), Map.of("CURRENT", new byte[] {1}),
                List.of(delta));
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        format.write(new DataOutputStream(bytes));
        IncrementalFormat read = IncrementalFormat.read(new DataInputStream(new ByteArrayInputStream(bytes.toByteArray())));
        assertThat(read.delta()).hasSize(1);
        assertThat(read.delta().get(0).keys()).isDeepEqualTo(delta.keys());
        assertThat(read.delta().get(0).values()).isDeepEqualTo(delta.values());
        assertThat(read.delta().get(0).keyGroup(1)).isEqualTo(2);

        // version 1 (before delta checkpoints): the same without the delta section
        ByteArrayOutputStream v1 = new ByteArrayOutputStream();
        DataOutputStream out = new DataOutputStream(v1);
        new IncrementalFormat(5, Map.of("value", StateKind.VALUE), Map.of("CURRENT", new byte[] {1}), List.of()).write(out);
        byte[] old = java.util.Arrays.copyOf(v1.toByteArray(), v1.size() - 4); // drop the empty delta count
        old[7] = 1; // version int
        IncrementalFormat readOld = IncrementalFormat.read(new DataInputStream(new ByteArrayInputStream(old)));
        assertThat(readOld.delta()).isEmpty();
        assertThat(readOld.files()).containsOnlyKeys("CURRENT");
    }
}
