package io.weir.runtime;

import io.weir.core.config.Configuration;
import io.weir.core.coordination.CompletedCheckpointStats;
import io.weir.core.engine.JobHandle;
import io.weir.core.engine.JobListener;
import io.weir.core.engine.JobResult;
import io.weir.core.engine.JobStatus;
import io.weir.core.job.JobGraph;
import io.weir.core.job.JobSpecParser;
import io.weir.runtime.engine.LocalEngine;
import jakarta.json.spi.JsonProvider;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * Savepoints end to end on the local engine (PROTOCOL.md §7): a savepoint or stop-with-savepoint, its directory
 * moved elsewhere, and a new run from it ({@code execution.savepoint.path}) whose committed output is exactly-once
 * against the ground truth computed from the data file.
 */
class SavepointTest {
    private static final int LIMIT = 6000;

    @TempDir
    Path tmp;
    private final LocalEngine engine = LocalEngine.fromServiceLoader(getClass().getClassLoader(), Configuration.empty());

    @AfterEach
    void stop() {
        engine.close();
    }

    /** The flight-delays job, its aggregate slowed to 1 ms per record so that it is still running when stopped. */
    private String slowJob() {
        return FlightData.job(tmp.resolve("checkpoints"), 1, LIMIT, 1, tmp.resolve("out"));
    }

    private String fastJob() {
        return FlightData.job(tmp.resolve("checkpoints"), 1, LIMIT, 0, tmp.resolve("out"));
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

        JobResult awaitResult() throws Exception {
            return handle.result().get(120, TimeUnit.SECONDS);
        }
    }

    private Submitted submit(String json, Map<String, String> overrides) throws Exception {
        JobGraph job = new JobSpecParser(engine.services().plugins(), JsonProvider.provider()).parse(json, tmp, overrides);
        Submitted s = new Submitted();
        s.handle = engine.submit(job, s);
        return s;
    }

    private static Map<String, String> config(String... keyValues) {
        Map<String, String> m = new HashMap<>(Map.of("taskmanager.memory.segment-size", "2048"));
        for (int i = 0; i < keyValues.length; i += 2) {
            m.put(keyValues[i], keyValues[i + 1]);
        }
        return m;
    }

    private Path move(Path savepoint) throws Exception {
        Path moved = tmp.resolve("moved/elsewhere/" + savepoint.getFileName());
        Files.createDirectories(moved.getParent());
        Files.move(savepoint, moved);
        assertThat(savepoint).doesNotExist();
        return moved;
    }

    private List<Path> ownCheckpoints() throws Exception {
        Path dir = tmp.resolve("checkpoints/flight-delays");
        try (Stream<Path> s = Files.list(dir)) {
            return s.filter(p -> Files.exists(p.resolve("_metadata"))).toList();
        }
    }

    @ParameterizedTest(name = "drain={0}")
    @ValueSource(booleans = {false, true})
    void stopWithSavepointThenANewRunFromTheMovedSavepointIsExactlyOnce(boolean drain) throws Exception {
        Submitted first = submit(slowJob(), config("execution.checkpointing.interval", "50 ms"));
        await().atMost(Duration.ofSeconds(60)).until(() -> !first.completed.isEmpty());

        Path savepoint = first.handle.stopWithSavepoint(Optional.of(tmp.resolve("savepoints")), drain).get(60, TimeUnit.SECONDS);

        assertThat(first.awaitResult().status()).isEqualTo(JobStatus.FINISHED);
        assertThat(savepoint.getParent()).isEqualTo(tmp.resolve("savepoints"));
        assertThat(savepoint.getFileName().toString()).matches("savepoint-flight-delays-[0-9a-f]{6}");
        long committed = FlightData.committedRows(tmp.resolve("out")).size();
        assertThat(committed).as("the stop came before the end of the input").isLessThan(LIMIT);
        assertThat(ownCheckpoints()).as("the savepoint supersedes the job's own checkpoints").isEmpty();
        long savepointId = first.completed.get(first.completed.size() - 1).checkpointId();

        Path moved = move(savepoint);
        Submitted second = submit(fastJob(), config("execution.checkpointing.interval", "50 ms",
                "execution.savepoint.path", moved.toString()));

        assertThat(second.awaitResult().status()).isEqualTo(JobStatus.FINISHED);
        assertThat(second.restoredFrom).first().isEqualTo(savepointId);
        assertThat(second.completed).allSatisfy(c -> assertThat(c.checkpointId()).isGreaterThan(savepointId));
        FlightData.assertExactlyOnce(tmp.resolve("out"), FlightData.groundTruth(LIMIT));
    }

    @Test
    void aRunEndedAfterASavepointButBeforeAnyLaterCheckpointResumesFromThatSavepoint() throws Exception {
        // no periodic checkpoints: the savepoint is the only commit point, so after the cancel the output ends at it
        Submitted first = submit(slowJob(), config("execution.checkpointing.interval", "1 h"));
        await().atMost(Duration.ofSeconds(60)).until(() -> first.handle.status() == JobStatus.RUNNING);

        Path savepoint = first.handle.triggerSavepoint(Optional.of(tmp.resolve("savepoints"))).get(60, TimeUnit.SECONDS);
        // the sinks commit when the notification (a mail) reaches them, after the savepoint's future completed
        await("the sinks committed the savepoint").atMost(Duration.ofSeconds(60))
                .until(() -> !FlightData.committedRows(tmp.resolve("out")).isEmpty());
        first.handle.cancel();

        assertThat(first.awaitResult().status()).isEqualTo(JobStatus.CANCELED);
        assertThat(ownCheckpoints()).isEmpty();
        long savepointId = first.completed.get(first.completed.size() - 1).checkpointId();

        // a plain rerun: without the job's record of the savepoint it would start fresh and repeat committed output
        Submitted second = submit(fastJob(), config());

        assertThat(second.awaitResult().status()).isEqualTo(JobStatus.FINISHED);
        assertThat(second.restoredFrom).containsExactly(savepointId);
        assertThat(savepoint.resolve("_metadata")).exists();
        FlightData.assertExactlyOnce(tmp.resolve("out"), FlightData.groundTruth(LIMIT));
    }

    @Test
    void aMovedSavepointRecordedAsTheNewestRestorePointIsRefusedUntilTheJobDirectoryIsClearedThenRestoresFromItsNewPath()
            throws Exception {
        Submitted first = submit(slowJob(), config("execution.checkpointing.interval", "1 h"));
        await().atMost(Duration.ofSeconds(60)).until(() -> first.handle.status() == JobStatus.RUNNING);
        Path savepoint = first.handle.triggerSavepoint(Optional.of(tmp.resolve("savepoints"))).get(60, TimeUnit.SECONDS);
        first.handle.cancel();
        first.awaitResult();
        Path moved = move(savepoint);

        Submitted plain = submit(fastJob(), config());
        assertThat(plain.awaitResult().status()).isEqualTo(JobStatus.FAILED);
        assertThat(plain.awaitResult().failure()).hasMessageContaining(savepoint.toString())
                .hasMessageContaining("--from-savepoint");
        assertThatThrownBy(() -> submit(fastJob(), config("execution.savepoint.path", moved.toString())))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("ambiguous");

        deleteRecursively(tmp.resolve("checkpoints"));
        Submitted second = submit(fastJob(), config("execution.savepoint.path", moved.toString()));

        assertThat(second.awaitResult().status()).isEqualTo(JobStatus.FINISHED);
        FlightData.assertExactlyOnce(tmp.resolve("out"), FlightData.groundTruth(LIMIT));
    }

    private static void deleteRecursively(Path dir) throws Exception {
        try (Stream<Path> all = Files.walk(dir)) {
            for (Path p : all.sorted(java.util.Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        }
    }

    @Test
    void aStopWhoseSavepointFailsRestartsTheJobWhichThenRunsToItsEndExactlyOnce() throws Exception {
        Path notADirectory = Files.writeString(tmp.resolve("a-file"), "x");
        Submitted first = submit(slowJob(), config("execution.checkpointing.interval", "50 ms"));
        await().atMost(Duration.ofSeconds(60)).until(() -> !first.completed.isEmpty());

        assertThatThrownBy(() -> first.handle.stopWithSavepoint(Optional.of(notADirectory.resolve("sp")), false)
                .get(60, TimeUnit.SECONDS)).hasMessageContaining("stop-with-savepoint of job flight-delays")
                .hasMessageContaining(notADirectory.resolve("sp").toString());

        JobResult result = first.awaitResult();
        assertThat(result.status()).isEqualTo(JobStatus.FINISHED);
        assertThat(result.restarts()).isEqualTo(1);
        FlightData.assertExactlyOnce(tmp.resolve("out"), FlightData.groundTruth(LIMIT));
    }

    @Test
    void aSavepointWithoutADirectoryGivenOrConfiguredIsRefusedNamingTheOption() throws Exception {
        Submitted first = submit(slowJob(), config());
        assertThatThrownBy(() -> first.handle.triggerSavepoint(Optional.empty()).join()).cause()
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("execution.checkpointing.savepoint-dir");
        first.handle.cancel();
        first.awaitResult();
    }

    @Test
    void stateOfAnOperatorTheNewJobLacksIsRefusedUnlessAllowed() throws Exception {
        Submitted first = submit(slowJob(), config("execution.checkpointing.interval", "1 h"));
        await().atMost(Duration.ofSeconds(60)).until(() -> first.handle.status() == JobStatus.RUNNING);
        Path savepoint = first.handle.stopWithSavepoint(Optional.of(tmp.resolve("savepoints")), false).get(60, TimeUnit.SECONDS);
        first.awaitResult();
        String renamed = fastJob().replace("\"per-origin\"", "\"per-origin-v2\"");

        assertThatThrownBy(() -> submit(renamed, config("execution.savepoint.path", savepoint.toString())))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("holds state of operator(s) [per-origin]")
                .hasMessageContaining("--allow-non-restored-state");

        Submitted allowed = submit(renamed, config("execution.savepoint.path", savepoint.toString(),
                "execution.savepoint.ignore-unclaimed-state", "true"));
        assertThat(allowed.awaitResult().status()).isEqualTo(JobStatus.FINISHED);
        assertThat(allowed.restoredFrom).hasSize(1);
    }

    @Test
    void aPathThatIsNotASavepointIsRefusedAtSubmitNamingIt() throws Exception {
        Path notASavepoint = Files.createDirectories(tmp.resolve("just-a-directory"));
        assertThatThrownBy(() -> submit(fastJob(), config("execution.savepoint.path", notASavepoint.toString())))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("is not a savepoint or checkpoint Weir can restore")
                .hasMessageContaining(notASavepoint.resolve("_metadata").toString());
    }

    @Test
    void aSavepointForAJobThatHasCheckpointsOfItsOwnIsRefusedAsAmbiguous() throws Exception {
        Submitted first = submit(slowJob(), config("execution.checkpointing.interval", "50 ms"));
        await().atMost(Duration.ofSeconds(60)).until(() -> first.completed.size() >= 1);
        Path savepoint = first.handle.triggerSavepoint(Optional.of(tmp.resolve("savepoints"))).get(60, TimeUnit.SECONDS);
        first.handle.cancel();
        first.awaitResult();
        assertThat(ownCheckpoints()).isNotEmpty();

        assertThatThrownBy(() -> submit(fastJob(), config("execution.savepoint.path", savepoint.toString())))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("ambiguous").hasMessageContaining("drop --from-savepoint");
    }

    /**
     * {@code execution.savepoint.resume-own-checkpoints} (what the node sets when it resumes a job): the savepoint is
     * used while the job has no checkpoint of its own — here a run from it was cancelled before its first one —
     * and once it has one, the job resumes from that instead of being refused as ambiguous; exactly once throughout.
     */
    @Test
    void withResumeOwnCheckpointsTheSavepointIsUsedOnlyUntilTheJobHasACheckpointOfItsOwn() throws Exception {
        Submitted first = submit(slowJob(), config("execution.checkpointing.interval", "50 ms"));
        await().atMost(Duration.ofSeconds(60)).until(() -> !first.completed.isEmpty());
        Path savepoint = first.handle.stopWithSavepoint(Optional.of(tmp.resolve("savepoints")), false).get(60, TimeUnit.SECONDS);
        assertThat(first.awaitResult().status()).isEqualTo(JobStatus.FINISHED);
        long savepointId = first.completed.get(first.completed.size() - 1).checkpointId();
        assertThat(ownCheckpoints()).isEmpty();

        // a run from the savepoint that ends before its first checkpoint (no periodic checkpoints)
        Submitted noCheckpoint = submit(slowJob(), Map.of("execution.savepoint.path", savepoint.toString(),
                "execution.savepoint.resume-own-checkpoints", "true"));
        await().atMost(Duration.ofSeconds(60)).until(() -> noCheckpoint.handle.status() == JobStatus.RUNNING);
        noCheckpoint.handle.cancel();
        assertThat(noCheckpoint.awaitResult().status()).isEqualTo(JobStatus.CANCELED);
        assertThat(noCheckpoint.restoredFrom).containsExactly(savepointId);
        assertThat(ownCheckpoints()).isEmpty();

        // the same overrides again: still the savepoint, now with checkpoints of its own before it is cancelled
        Submitted withCheckpoints = submit(slowJob(), config("execution.checkpointing.interval", "50 ms",
                "execution.savepoint.path", savepoint.toString(), "execution.savepoint.resume-own-checkpoints", "true"));
        await().atMost(Duration.ofSeconds(60)).until(() -> withCheckpoints.completed.size() >= 2);
        withCheckpoints.handle.cancel();
        withCheckpoints.awaitResult();
        assertThat(withCheckpoints.restoredFrom).containsExactly(savepointId);
        long ownNewest = withCheckpoints.completed.get(withCheckpoints.completed.size() - 1).checkpointId();

        // and again: its own newest checkpoint wins over the savepoint, which is not refused as ambiguous
        Submitted last = submit(fastJob(), config("execution.checkpointing.interval", "50 ms",
                "execution.savepoint.path", savepoint.toString(), "execution.savepoint.resume-own-checkpoints", "true"));
        assertThat(last.awaitResult().status()).isEqualTo(JobStatus.FINISHED);
        assertThat(last.restoredFrom).first().satisfies(id -> assertThat(id).isGreaterThanOrEqualTo(ownNewest));
        FlightData.assertExactlyOnce(tmp.resolve("out"), FlightData.groundTruth(LIMIT));
    }
}
