package io.weir.runtime;

import io.weir.core.checkpoint.CheckpointMetadata;
import io.weir.core.config.Configuration;
import io.weir.core.engine.JobStatus;
import io.weir.runtime.engine.LocalEngine;
import io.weir.runtime.faults.InterceptedCoordinators;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A bounded job is finished only once every sink committed its final checkpoint (issue 6, "a kill
 * in the final-checkpoint window"), and a run that has nothing to resume from never writes again
 * what an earlier run committed ("fresh starts that repeat committed output").
 */
class FinalCheckpointWindowTest {
    private static final int LIMIT = 3000;
    // only the final checkpoint: every row is in its transactions, pre-committed until the sinks commit it
    private static final Map<String, String> CONFIG = Map.of("execution.checkpointing.interval", "1 h");

    @TempDir
    Path tmp;
    private final LocalEngine base = LocalEngine.fromServiceLoader(getClass().getClassLoader(), Configuration.empty());

    @AfterEach
    void stop() {
        base.close();
    }

    private String job() {
        return FlightData.job(tmp.resolve("checkpoints"), 1, LIMIT, 0, tmp.resolve("out"));
    }

    @Test
    void runStoppedAfterTheFinalCheckpointCompletedResumesFromItAndCommitsWhatIsPending() throws Exception {
        // run 1 stops between the final checkpoint's _metadata and the sinks' commits: its tasks are
        // gone before any is notified, as if the process had been killed there
        AtomicLong finalId = new AtomicLong();
        AtomicReference<InterceptedCoordinators> factory = new AtomicReference<>();
        InterceptedCoordinators.Hooks hooks = new InterceptedCoordinators.Hooks() {
            @Override
            public void afterMetadataWritten(CheckpointMetadata metadata, Consumer<String> failJob) {
                if (metadata.isFinal() && finalId.compareAndSet(0, metadata.checkpointId())) {
                    failJob.accept("right after final checkpoint " + metadata.checkpointId() + " completed");
                    await().atMost(Duration.ofSeconds(30)).until(() -> factory.get().currentTasks().isEmpty());
                }
            }
        };
        JobRun first;
        { // not closed: it shares the base engine's threads, which @AfterEach stops
            LocalEngine engine = InterceptedCoordinators.engine(base, hooks);
            factory.set(InterceptedCoordinators.of(engine));
            first = JobRun.run(engine, job(), tmp, with("restart-strategy.fixed-delay.attempts", "0"));
        }
        assertThat(first.result.status()).isEqualTo(JobStatus.FAILED);
        assertThat(finalId.get()).isPositive();
        assertThat(inProgressFiles()).as("the final checkpoint's transactions are pre-committed, not committed").isNotEmpty();

        JobRun second = JobRun.run(base, job(), tmp, CONFIG);

        assertThat(second.result.status()).isEqualTo(JobStatus.FINISHED);
        assertThat(second.restoredFrom).containsExactly(finalId.get());
        FlightData.assertExactlyOnce(tmp.resolve("out"), FlightData.groundTruth(LIMIT));
    }

    @Test
    void rerunOfAFinishedJobIntoItsCommittedOutputIsRefusedAndWritesNothing() throws Exception {
        JobRun first = JobRun.run(base, job(), tmp, CONFIG);
        assertThat(first.result.status()).isEqualTo(JobStatus.FINISHED);
        List<String> before = FlightData.committedRows(tmp.resolve("out")).stream().map(Object::toString).sorted().toList();

        JobRun again = JobRun.run(base, job(), tmp, CONFIG);

        assertThat(again.result.status()).isEqualTo(JobStatus.FAILED);
        assertThat(again.result.restarts()).as("restarting cannot help").isZero();
        assertThat(again.result.failure()).hasMessageContaining("already holds").hasMessageContaining(tmp.resolve("out").toString());
        assertThat(FlightData.committedRows(tmp.resolve("out")).stream().map(Object::toString).sorted().toList()).isEqualTo(before);
        FlightData.assertExactlyOnce(tmp.resolve("out"), FlightData.groundTruth(LIMIT));
    }

    @Test
    void runWhoseCheckpointsAreGoneIsRefusedInsteadOfRepeatingCommittedOutput() throws Exception {
        Path out = tmp.resolve("out");
        // the run dies at the first checkpoint started after the sinks committed some output (an injected failure
        // after N checkpoints could fire before any row reached a sink: checkpoint 1 may complete empty under load)
        InterceptedCoordinators.Hooks hooks = new InterceptedCoordinators.Hooks() {
            @Override
            public void onInitCheckpoint(long checkpointId, Consumer<String> failJob) {
                try {
                    if (Files.isDirectory(out) && !FlightData.committedRows(out).isEmpty()) {
                        failJob.accept("injected at checkpoint " + checkpointId + ", after the sinks committed output");
                    }
                } catch (java.io.IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
            }
        };
        JobRun first;
        { // not closed: it shares the base engine's threads, which @AfterEach stops
            LocalEngine engine = InterceptedCoordinators.engine(base, hooks);
            // paced (1 ms per record at each of 2 subtasks): the 3,000 rows take >= 1.5 s, against checkpoints every 5 ms
            first = JobRun.run(engine, FlightData.job(tmp.resolve("checkpoints"), 1, LIMIT, 1, out), tmp, Map.of(
                    "taskmanager.memory.segment-size", "2048", "execution.checkpointing.interval", "5 ms",
                    "restart-strategy.fixed-delay.attempts", "0"));
        }
        assertThat(first.result.status()).as("the run died after committing some output").isEqualTo(JobStatus.FAILED);
        assertThat(FlightData.committedRows(out)).isNotEmpty();
        List<String> before = FlightData.committedRows(out).stream().map(Object::toString).sorted().toList();
        deleteRecursively(tmp.resolve("checkpoints"));

        JobRun again = JobRun.run(base, job(), tmp, CONFIG);

        assertThat(again.result.status()).isEqualTo(JobStatus.FAILED);
        assertThat(again.result.failure()).hasMessageContaining("no checkpoint to resume from").hasMessageContaining(out.toString());
        assertThat(FlightData.committedRows(out).stream().map(Object::toString).sorted().toList()).isEqualTo(before);
    }

    private Map<String, String> with(String key, String value) {
        Map<String, String> m = new java.util.HashMap<>(CONFIG);
        m.put(key, value);
        return m;
    }

    private List<Path> inProgressFiles() throws Exception {
        try (Stream<Path> files = Files.list(tmp.resolve("out"))) {
            return files.filter(f -> f.getFileName().toString().endsWith(".inprogress")).toList();
        }
    }

    private static void deleteRecursively(Path dir) throws Exception {
        try (Stream<Path> all = Files.walk(dir)) {
            for (Path p : all.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        }
    }
}
