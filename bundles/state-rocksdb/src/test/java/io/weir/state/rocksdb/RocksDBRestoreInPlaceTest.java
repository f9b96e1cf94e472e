package io.weir.state.rocksdb;

import io.weir.core.checkpoint.KeyGroupsStateHandle;
import io.weir.core.checkpoint.SharedFileHandle;
import io.weir.core.config.Configuration;
import io.weir.core.state.KeyGroupRange;
import io.weir.core.state.KeyedStateBackend;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import static io.weir.state.rocksdb.RocksDBKeyedStateBackendTest.MAX_PARALLELISM;
import static io.weir.state.rocksdb.RocksDBKeyedStateBackendTest.VALUE;
import static io.weir.state.rocksdb.RocksDBKeyedStateBackendTest.key;
import static io.weir.state.rocksdb.RocksDBKeyedStateBackendTest.keyGroup;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Restore of incremental snapshots: the DB of the handle with the largest overlap is opened in place and its
 * foreign key groups deleted by range; other handles' overlapping rows are copied in. 100,000 keys; the restore
 * times are printed (docs/state-rocksdb.md).
 */
class RocksDBRestoreInPlaceTest {
    private static final int KEYS = 100_000;
    private static final KeyGroupRange LOW = new KeyGroupRange(0, 63);
    private static final KeyGroupRange HIGH = new KeyGroupRange(64, MAX_PARALLELISM - 1);
    private static final KeyGroupRange ALL = new KeyGroupRange(0, MAX_PARALLELISM - 1);

    @TempDir
    Path local;
    private final List<KeyedStateBackend> open = new ArrayList<>();

    @AfterEach
    void closeAll() {
        open.forEach(KeyedStateBackend::close);
    }

    private RocksDBKeyedStateBackend rocks(KeyGroupRange range, List<KeyGroupsStateHandle> restore) throws Exception {
        RocksDBKeyedStateBackend b = (RocksDBKeyedStateBackend) TestBackends.create(new RocksDBStateBackend(), local, range,
                restore, Configuration.empty().with("state.backend.incremental", true));
        open.add(b);
        return b;
    }

    private static String valueOf(long id) {
        return "v" + id + "-" + "x".repeat(40);
    }

    /** Writes every key of the range among 0..KEYS-1 and takes an incremental snapshot. */
    private KeyGroupsStateHandle snapshotOf(KeyGroupRange range) throws Exception {
        RocksDBKeyedStateBackend b = rocks(range, List.of());
        for (long id = 0; id < KEYS; id++) {
            if (range.contains(keyGroup(id))) {
                b.setCurrentKey(key(id), keyGroup(id));
                b.getState(VALUE).update(valueOf(id));
            }
        }
        KeyGroupsStateHandle h = b.snapshot(1, MemoryStreamFactory.withSharedState()).write();
        assertThat(h.isIncremental()).isTrue();
        return h;
    }

    private static void assertExactlyTheRange(RocksDBKeyedStateBackend b, KeyGroupRange range) {
        long expected = 0;
        for (long id = 0; id < KEYS; id++) {
            if (range.contains(keyGroup(id))) {
                expected++;
                b.setCurrentKey(key(id), keyGroup(id));
                assertThat(b.getState(VALUE).value()).as("key %d", id).isEqualTo(valueOf(id));
            }
        }
        assertThat(b.rowCount(VALUE.name())).as("rows of foreign key groups are gone").isEqualTo(expected);
    }

    private static Set<String> sstFilesIn(Path db) throws Exception {
        try (Stream<Path> files = Files.list(db)) {
            return files.map(p -> p.getFileName().toString()).filter(n -> n.endsWith(".sst")).collect(Collectors.toSet());
        }
    }

    private RocksDBKeyedStateBackend timedRestore(String what, KeyGroupRange range, List<KeyGroupsStateHandle> handles)
            throws Exception {
        long start = System.nanoTime();
        RocksDBKeyedStateBackend b = rocks(range, handles);
        b.getState(VALUE);
        System.out.printf("restore of %d keys, %s: %d ms%n", KEYS, what, (System.nanoTime() - start) / 1_000_000);
        return b;
    }

    @Test
    void sameParallelismOpensTheDownloadedDbInPlace() throws Exception {
        KeyGroupsStateHandle all = snapshotOf(ALL);

        RocksDBKeyedStateBackend b = timedRestore("1 -> 1", ALL, List.of(all));

        assertThat(sstFilesIn(b.directory().resolve("db"))).as("the checkpoint's SST files are the new DB's")
                .containsAll(all.sharedFiles().stream().map(SharedFileHandle::name).filter(n -> n.endsWith(".sst")).toList());
        assertExactlyTheRange(b, ALL);
    }

    @Test
    void scaleOutClipsForeignKeyGroupsByRange() throws Exception {
        KeyGroupsStateHandle all = snapshotOf(ALL);

        RocksDBKeyedStateBackend high = timedRestore("1 -> 2 (upper half)", HIGH, List.of(all));

        assertExactlyTheRange(high, HIGH);
    }

    @Test
    void scaleInOpensOneDbAndCopiesTheOther() throws Exception {
        KeyGroupsStateHandle low = snapshotOf(LOW);
        KeyGroupsStateHandle high = snapshotOf(HIGH);

        RocksDBKeyedStateBackend b = timedRestore("2 -> 1", ALL, List.of(low, high));

        assertExactlyTheRange(b, ALL);
    }
}
