package io.weir.state.rocksdb;

import io.weir.core.checkpoint.KeyGroupsStateHandle;
import io.weir.core.checkpoint.SharedFileHandle;
import io.weir.core.config.Configuration;
import io.weir.core.state.KeyGroupAssignment;
import io.weir.core.state.KeyGroupRange;
import io.weir.core.state.KeyedStateBackend;
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
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import static io.weir.state.rocksdb.RocksDBKeyedStateBackendTest.MAX_PARALLELISM;
import static io.weir.state.rocksdb.RocksDBKeyedStateBackendTest.VALUE;
import static io.weir.state.rocksdb.RocksDBKeyedStateBackendTest.key;
import static io.weir.state.rocksdb.RocksDBKeyedStateBackendTest.keyGroup;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Incremental checkpoints of the RocksDB backend: what is uploaded, what is reused and when, restore of
 * incremental handles with and without rescaling, and savepoints staying canonical.
 */
class RocksDBIncrementalSnapshotTest {
    private static final int KEYS = 3000;
    private static final KeyGroupRange ALL = new KeyGroupRange(0, MAX_PARALLELISM - 1);

    @TempDir
    Path local;

    private final List<KeyedStateBackend> open = new ArrayList<>();

    @AfterEach
    void closeAll() {
        open.forEach(KeyedStateBackend::close);
    }

    private KeyedStateBackend create(StateBackend type, KeyGroupRange range, List<KeyGroupsStateHandle> restore) throws Exception {
        return create(type, range, restore, Configuration.empty());
    }

    private KeyedStateBackend create(StateBackend type, KeyGroupRange range, List<KeyGroupsStateHandle> restore,
            Configuration config) throws Exception {
        KeyedStateBackend b = TestBackends.create(type, local, range, restore, config.with("state.backend.incremental", true));
        open.add(b);
        return b;
    }

    private KeyedStateBackend rocks(KeyGroupRange range, List<KeyGroupsStateHandle> restore) throws Exception {
        return create(new RocksDBStateBackend(), range, restore);
    }

    private static void put(KeyedStateBackend b, long from, long to, String prefix) {
        for (long id = from; id < to; id++) {
            b.setCurrentKey(key(id), keyGroup(id));
            // ~100 bytes per value so that the state has some size
            b.getState(VALUE).update(prefix + id + "-" + "x".repeat(90));
        }
    }

    private static void assertValues(KeyedStateBackend b, long from, long to, String prefix) {
        for (long id = from; id < to; id++) {
            b.setCurrentKey(key(id), keyGroup(id));
            assertThat(b.getState(VALUE).value()).as("key %d", id).isEqualTo(prefix + id + "-" + "x".repeat(90));
        }
    }

    private static Set<String> names(KeyGroupsStateHandle h) {
        return h.sharedFiles().stream().map(SharedFileHandle::name).collect(Collectors.toSet());
    }

    /** @return the names of the SST files among {@code names}: MANIFEST, CURRENT and OPTIONS are shared files too */
    private static Set<String> ssts(Set<String> names) {
        return names.stream().filter(n -> n.endsWith(".sst")).collect(Collectors.toSet());
    }

    @Test
    void afterASmallChangeOnlyTheNewSstFilesAreUploadedAndTheOthersReferenced() throws Exception {
        // without the state cache every change is in RocksDB, so checkpoint 2 is a native one (with the cache it would
        // be a delta checkpoint over checkpoint 1: RocksDBDeltaCheckpointTest)
        KeyedStateBackend b = create(new RocksDBStateBackend(), ALL, List.of(),
                Configuration.empty().with("state.backend.rocksdb.state-cache.size", 0));
        put(b, 0, KEYS, "v");
        MemoryStreamFactory first = MemoryStreamFactory.withSharedState();
        KeyGroupsStateHandle one = b.snapshot(1, first).write();
        assertThat(one.isIncremental()).isTrue();
        assertThat(one.sharedFiles()).allSatisfy(f -> assertThat(f.uploadedBy()).isEqualTo(1));
        assertThat(one.checkpointedSize(1)).isEqualTo(one.stateSize());
        b.notifyCheckpointComplete(1);

        put(b, 0, 10, "changed"); // 10 of 3000 keys
        MemoryStreamFactory second = MemoryStreamFactory.withSharedState();
        KeyGroupsStateHandle two = b.snapshot(2, second).write();

        Set<String> reused = two.sharedFiles().stream().filter(f -> f.uploadedBy() == 1).map(SharedFileHandle::name)
                .collect(Collectors.toSet());
        Set<String> uploaded = two.sharedFiles().stream().filter(f -> f.uploadedBy() == 2).map(SharedFileHandle::name)
                .collect(Collectors.toSet());
        assertThat(reused).as("checkpoint 1's SST files are referenced, not uploaded again").isEqualTo(ssts(names(one)));
        assertThat(ssts(uploaded)).as("the flush of the change made a new SST file").isNotEmpty()
                .doesNotContainAnyElementsOf(names(one));
        assertThat(uploaded).as("the native checkpoint's other files, uploaded again").contains("CURRENT");
        assertThat(second.sharedCreated.get()).as("shared streams created by checkpoint 2").isEqualTo(uploaded.size());
        // the handles of reused files are checkpoint 1's own
        for (SharedFileHandle f : two.sharedFiles()) {
            if (f.uploadedBy() == 1) {
                assertThat(one.sharedFiles()).contains(f);
            }
        }
        long full = two.stateSize();
        long incremental = two.checkpointedSize(2);
        assertThat(incremental).as("incremental bytes %d vs full %d", incremental, full).isLessThan(full / 5);
        System.out.printf("incremental checkpoint after changing 10 of %d keys: checkpointed_size %d bytes, state_size %d bytes%n",
                KEYS, incremental, full);

        KeyedStateBackend restored = rocks(ALL, List.of(two));
        assertValues(restored, 0, 10, "changed");
        assertValues(restored, 10, KEYS, "v");
    }

    /**
     * Checkpoint 1 completes only after snapshot 2 was taken (short interval): snapshot 2 uploaded its own copies, and
     * when checkpoint 2 completes the coordinator deletes the files only checkpoint 1 referenced. So snapshot 3 must
     * not reuse checkpoint 1's files (a restore from 3 found them missing in HourlyWindowExactlyOnceTest).
     */
    @Test
    void filesOfACheckpointCompletedAfterALaterSnapshotAreNotReused() throws Exception {
        KeyedStateBackend b = rocks(ALL, List.of());
        put(b, 0, KEYS, "v");
        b.snapshot(1, MemoryStreamFactory.withSharedState()).write();
        put(b, 0, 10, "changed");
        KeyGroupsStateHandle two = b.snapshot(2, MemoryStreamFactory.withSharedState()).write();
        assertThat(two.sharedFiles()).allSatisfy(f -> assertThat(f.uploadedBy()).isEqualTo(2));
        b.notifyCheckpointComplete(1); // late: snapshot 2 exists

        put(b, 10, 20, "changed");
        KeyGroupsStateHandle three = b.snapshot(3, MemoryStreamFactory.withSharedState()).write();
        assertThat(three.sharedFiles()).noneSatisfy(f -> assertThat(f.uploadedBy()).isEqualTo(1));

        b.notifyCheckpointComplete(3); // 2's notification never came (subsumed): 3 is the newest, its files are reused
        b.notifyCheckpointComplete(2); // stale
        put(b, 20, 30, "changed");
        KeyGroupsStateHandle four = b.snapshot(4, MemoryStreamFactory.withSharedState()).write();
        assertThat(four.sharedFiles()).filteredOn(f -> f.uploadedBy() != 4).isNotEmpty()
                .allSatisfy(f -> assertThat(f.uploadedBy()).isEqualTo(3));
    }

    @Test
    void filesOfACheckpointNotYetCompletedAreNeverReused() throws Exception {
        KeyedStateBackend b = rocks(ALL, List.of());
        put(b, 0, KEYS, "v");
        KeyGroupsStateHandle one = b.snapshot(1, MemoryStreamFactory.withSharedState()).write();
        // no notifyCheckpointComplete(1): checkpoint 1 may still be aborted and its files deleted
        put(b, 0, 10, "changed");
        KeyGroupsStateHandle two = b.snapshot(2, MemoryStreamFactory.withSharedState()).write();
        assertThat(two.sharedFiles()).allSatisfy(f -> assertThat(f.uploadedBy()).isEqualTo(2));
        assertThat(names(two)).containsAll(names(one));

        b.notifyCheckpointAborted(2);
        b.notifyCheckpointComplete(1);
        put(b, 10, 20, "changed");
        KeyGroupsStateHandle three = b.snapshot(3, MemoryStreamFactory.withSharedState()).write();
        assertThat(three.sharedFiles()).filteredOn(f -> f.uploadedBy() != 3)
                .as("only the completed checkpoint 1's files are reused").allSatisfy(f -> assertThat(f.uploadedBy()).isEqualTo(1))
                .isNotEmpty();
    }

    @Test
    void savepointsStayCanonicalAndRestoreOnTheHeapBackend() throws Exception {
        KeyedStateBackend b = rocks(ALL, List.of());
        put(b, 0, KEYS, "v");
        MemoryStreamFactory savepoint = new MemoryStreamFactory(); // no shared state: a savepoint location
        KeyGroupsStateHandle handle = b.snapshot(1, savepoint).write();
        assertThat(handle.isIncremental()).isFalse();
        assertThat(savepoint.sharedCreated.get()).isZero();
        KeyedStateBackend heap = create(new HeapStateBackend(), ALL, List.of(handle));
        assertValues(heap, 0, KEYS, "v");
    }

    @Test
    void incrementalHandlesRestoreWithRescalingTwoToThreeAndThreeToOne() throws Exception {
        List<KeyGroupsStateHandle> two = new ArrayList<>();
        for (int i = 0; i < 2; i++) {
            KeyedStateBackend b = rocks(KeyGroupAssignment.rangeForSubtask(MAX_PARALLELISM, 2, i), List.of());
            for (long id = 0; id < KEYS; id++) {
                if (KeyGroupAssignment.subtaskForKeyGroup(keyGroup(id), MAX_PARALLELISM, 2) == i) {
                    put(b, id, id + 1, "v");
                }
            }
            two.add(b.snapshot(1, MemoryStreamFactory.withSharedState()).write());
        }
        List<KeyGroupsStateHandle> three = new ArrayList<>();
        List<KeyedStateBackend> threeBackends = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            threeBackends.add(rocks(KeyGroupAssignment.rangeForSubtask(MAX_PARALLELISM, 3, i), two));
        }
        for (long id = 0; id < KEYS; id++) {
            assertValues(threeBackends.get(KeyGroupAssignment.subtaskForKeyGroup(keyGroup(id), MAX_PARALLELISM, 3)), id, id + 1, "v");
        }
        for (int i = 0; i < 3; i++) {
            RocksDBKeyedStateBackend b = (RocksDBKeyedStateBackend) threeBackends.get(i);
            // foreign key groups were not copied: each new subtask holds only its own keys
            long own = java.util.stream.LongStream.range(0, KEYS)
                    .filter(id -> KeyGroupAssignment.subtaskForKeyGroup(keyGroup(id), MAX_PARALLELISM, 3) == b.keyGroupRange().start()
                            * 3 / MAX_PARALLELISM).count();
            assertThat(b.rowCount("value")).isEqualTo(own);
            three.add(b.snapshot(2, MemoryStreamFactory.withSharedState()).write());
        }
        KeyedStateBackend one = rocks(ALL, three);
        assertValues(one, 0, KEYS, "v");
        assertThat(((RocksDBKeyedStateBackend) one).rowCount("value")).isEqualTo(KEYS);
    }

    @Test
    void closeDuringAnUploadKeepsTheWorkingDirectoryUntilTheUploadIsDone() throws Exception {
        RocksDBKeyedStateBackend b = (RocksDBKeyedStateBackend) rocks(ALL, List.of());
        put(b, 0, KEYS, "v");
        java.util.concurrent.CountDownLatch gate = new java.util.concurrent.CountDownLatch(1);
        MemoryStreamFactory streams = new MemoryStreamFactory(gate, true);
        var async = b.snapshot(1, streams);
        java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newSingleThreadExecutor();
        try {
            var written = pool.submit(async::write);
            assertThat(streams.writing.await(30, java.util.concurrent.TimeUnit.SECONDS)).isTrue();
            b.close();
            assertThat(b.directory()).as("kept while the SST files are uploaded").exists();
            gate.countDown();
            KeyGroupsStateHandle handle = written.get(30, java.util.concurrent.TimeUnit.SECONDS);
            assertThat(b.directory()).as("deleted once the upload is done").doesNotExist();
            assertValues(rocks(ALL, List.of(handle)), 0, KEYS, "v");
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void nativeCheckpointAndDownloadDirectoriesAreDeletedOnceUsed() throws Exception {
        RocksDBKeyedStateBackend b = (RocksDBKeyedStateBackend) rocks(ALL, List.of());
        put(b, 0, 100, "v");
        KeyGroupsStateHandle h = b.snapshot(7, MemoryStreamFactory.withSharedState()).write();
        RocksDBKeyedStateBackend r = (RocksDBKeyedStateBackend) rocks(ALL, List.of(h));
        try (Stream<Path> s = Files.list(b.directory()); Stream<Path> t = Files.list(r.directory())) {
            assertThat(s.map(p -> p.getFileName().toString()).toList()).containsExactly("db");
            assertThat(t.map(p -> p.getFileName().toString()).toList()).containsExactly("db");
        }
        assertValues(r, 0, 100, "v");
    }
}
