package io.weir.runtime;

import io.weir.core.config.Configuration;
import io.weir.core.coordination.CompletedCheckpointStats;
import io.weir.core.engine.JobHandle;
import io.weir.core.engine.JobListener;
import io.weir.core.engine.JobStatus;
import io.weir.core.job.JobGraph;
import io.weir.core.job.JobSpecParser;
import io.weir.runtime.engine.LocalEngine;
import jakarta.json.spi.JsonProvider;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The flight-delays job on the RocksDB state backend ({@code state.backend.type=rocksdb}): exactly-once with a
 * failure injected, and switching backend (RocksDB → heap, heap → RocksDB) through a stop-with-savepoint, each
 * against the ground truth computed from the data file.
 */
class RocksDBJobTest {
    private static final int LIMIT = 6000;

    @TempDir
    Path tmp;
    private final LocalEngine engine = LocalEngine.fromServiceLoader(getClass().getClassLoader(), Configuration.empty());

    @AfterEach
    void stop() {
        engine.close();
    }

    private Map<String, String> onBackend(String type, String... keyValues) {
        Map<String, String> m = new HashMap<>(Map.of("state.backend.type", type,
                "state.backend.rocksdb.localdir", tmp.resolve("rocksdb").toString(),
                "execution.checkpointing.interval", "30 ms",
                "restart-strategy.fixed-delay.delay", "10 ms",
                // small buffers: backpressure reaches the source, which is still running when the savepoint is taken
                "taskmanager.memory.segment-size", "2048"));
        for (int i = 0; i < keyValues.length; i += 2) {
            m.put(keyValues[i], keyValues[i + 1]);
        }
        return m;
    }

    @Test
    void failureInjectedOnRocksDbRestoresExactlyOnceAndDeletesTheWorkingDirectories() throws Exception {
        Path out = tmp.resolve("out");
        // 1 ms per record in the aggregate, so checkpoints complete before the failure at record 800 of subtask 0
        JobRun run = JobRun.run(engine, FlightData.job(tmp.resolve("checkpoints"), 1, 3000, 1, out), tmp,
                onBackend("rocksdb", "debug.inject-failure.operator", "per-origin",
                        "debug.inject-failure.after-records", "800",
                        "debug.inject-failure.after-checkpoints", "1"));

        assertThat(run.result.status()).isEqualTo(JobStatus.FINISHED);
        assertThat(run.result.restarts()).isEqualTo(1);
        assertThat(run.completedBeforeRestart).as("checkpoints completed before the failure").isPositive();
        FlightData.assertExactlyOnce(out, FlightData.groundTruth(3000));
        // the RocksDB backend made its working directories here (so it was the backend in use) and deleted them all
        assertThat(tmp.resolve("rocksdb")).isEmptyDirectory();
    }

    @Test
    void incrementalCheckpointsWithAFailureInjectedAreExactlyOnceAndReuseFilesOfEarlierCheckpoints() throws Exception {
        Path out = tmp.resolve("out");
        JobRun run = JobRun.run(engine, FlightData.job(tmp.resolve("checkpoints"), 1, 3000, 1, out), tmp,
                onBackend("rocksdb", "state.backend.incremental", "true",
                        "execution.checkpointing.num-retained", "2",
                        "debug.inject-failure.operator", "per-origin",
                        "debug.inject-failure.after-records", "800",
                        "debug.inject-failure.after-checkpoints", "2"));

        assertThat(run.result.status()).isEqualTo(JobStatus.FINISHED);
        assertThat(run.result.restarts()).isEqualTo(1);
        FlightData.assertExactlyOnce(out, FlightData.groundTruth(3000));
        // some checkpoint of the keyed subtasks referenced SST files an earlier checkpoint had uploaded
        assertThat(run.completed).anySatisfy(c -> assertThat(c.subtasks().entrySet()).anySatisfy(e -> {
            assertThat(e.getKey().vertexId()).isEqualTo("per-origin");
            assertThat(e.getValue().checkpointedSizeBytes()).isLessThan(e.getValue().stateSizeBytes());
        }));
        // shared files left are exactly those the retained checkpoints refer to (none once the job directory is gone)
        Path shared = tmp.resolve("checkpoints/flight-delays/shared");
        if (java.nio.file.Files.exists(shared)) {
            java.util.Set<String> referenced = new java.util.HashSet<>();
            io.weir.storage.fs.FsCheckpointStorage storage = new io.weir.storage.fs.FsCheckpointStorage(tmp.resolve("checkpoints"),
                    "flight-delays");
            for (String pointer : storage.findRetainedCheckpoints(2)) {
                storage.loadCheckpoint(pointer).operatorStates().values().forEach(op -> op.subtaskStates().values()
                        .forEach(st -> st.sharedFiles().forEach(f -> {
                            if (f.registryKey() != null) { // SST files of at most 4 KB are kept inline in _metadata
                                referenced.add(f.registryKey());
                            }
                        })));
            }
            try (java.util.stream.Stream<Path> files = java.nio.file.Files.walk(shared)) {
                assertThat(files.filter(java.nio.file.Files::isRegularFile).map(p -> p.toAbsolutePath().normalize().toString())
                        .toList()).containsExactlyInAnyOrderElementsOf(referenced);
            }
        }
        assertThat(tmp.resolve("rocksdb")).isEmptyDirectory();
    }

    /** A submitted job and what it reported. */
    private static final class Submitted implements JobListener {
        final List<CompletedCheckpointStats> completed = new CopyOnWriteArrayList<>();
        final List<Long> restoredFrom = new CopyOnWriteArrayList<>();
        JobHandle handle;

        @Override
        public void onCompleted(CompletedCheckpointStats stats) {
            completed.add(stats);
        }

        @Override
        public void onRestore(String jobName, long checkpointId, String pointer) {
            restoredFrom.add(checkpointId);
        }
    }

    private Submitted submit(String json, Map<String, String> overrides) throws Exception {
        JobGraph job = new JobSpecParser(engine.services().plugins(), JsonProvider.provider()).parse(json, tmp, overrides);
        Submitted s = new Submitted();
        s.handle = engine.submit(job, s);
        return s;
    }

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource({"rocksdb, hashmap", "hashmap, rocksdb"})
    void aSavepointOfOneBackendRestoresOnTheOtherExactlyOnce(String first, String second) throws Exception {
        Path out = tmp.resolve("out");
        // 1 ms per record in the aggregate: the job is still running when the savepoint is taken
        Submitted one = submit(FlightData.job(tmp.resolve("checkpoints"), 1, LIMIT, 1, out), onBackend(first));
        await().atMost(Duration.ofSeconds(60)).until(() -> !one.completed.isEmpty());
        Path savepoint = one.handle.stopWithSavepoint(Optional.of(tmp.resolve("savepoints")), false).get(60, TimeUnit.SECONDS);
        assertThat(one.handle.result().get(60, TimeUnit.SECONDS).status()).isEqualTo(JobStatus.FINISHED);
        assertThat(FlightData.committedRows(out).size()).as("the stop came before the end of the input").isLessThan(LIMIT);
        long savepointId = one.completed.get(one.completed.size() - 1).checkpointId();

        Submitted two = submit(FlightData.job(tmp.resolve("checkpoints"), 1, LIMIT, 0, out),
                onBackend(second, "execution.savepoint.path", savepoint.toString()));

        assertThat(two.handle.result().get(120, TimeUnit.SECONDS).status()).isEqualTo(JobStatus.FINISHED);
        assertThat(two.restoredFrom).first().isEqualTo(savepointId);
        FlightData.assertExactlyOnce(out, FlightData.groundTruth(LIMIT));
    }
}
