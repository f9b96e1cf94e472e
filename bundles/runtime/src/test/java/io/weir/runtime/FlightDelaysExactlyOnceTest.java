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
import jakarta.json.JsonObject;
import jakarta.json.spi.JsonProvider;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.stream.LongStream;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/**
 * The flight-delays job (examples/flight-delays.json) on the embedded engine, wired without OSGi
 * through ServiceLoader. The committed output must be exactly-once against a ground truth computed
 * in the test from the data file: for every origin each count 1..N exactly once, and the row with
 * count N carries the true mean delay.
 *
 * <p>Failures are injected with {@code debug.inject-failure.operator/after-records}: subtask 0 of
 * the named operator throws once, in the first execution attempt, after that many records; the job
 * master then restarts all tasks from the latest completed checkpoint.
 */
class FlightDelaysExactlyOnceTest {
    @TempDir
    Path tmp;
    private LocalEngine engine;

    @BeforeEach
    void startEngine() {
        engine = LocalEngine.fromServiceLoader(getClass().getClassLoader(), Configuration.empty());
    }

    @AfterEach
    void stopEngine() {
        engine.close();
    }

    @Test
    void cleanRunCommitsEveryUpdateExactlyOnce() throws Exception {
        Run run = runFlightJob(Map.of("execution.checkpointing.interval", "20 ms"));

        assertThat(run.result().status()).isEqualTo(JobStatus.FINISHED);
        assertThat(run.result().restarts()).isZero();
        FlightData.assertExactlyOnce(run.output(), FlightData.groundTruth(Integer.MAX_VALUE));
        assertThat(run.run().completed).isNotEmpty();
        assertThat(run.run().completed.get(run.run().completed.size() - 1).isFinal()).isTrue();
    }

    @Test
    void failureMidRunRestoresAndStillCommitsExactlyOnce() throws Exception {
        // 3000 flights at 1 ms per record keep each aggregate subtask busy for over a second, and 2 KB
        // buffers keep the source from racing ahead (aligned barriers queue behind ~100 records, not
        // the whole input), so the failure (after 300 records and a completed checkpoint) lands mid-run
        int limit = 3000;
        Run run = runFlightJob(1, limit, 1, Map.of(
                "taskmanager.memory.segment-size", "2048",
                "execution.checkpointing.interval", "5 ms",
                "restart-strategy.fixed-delay.delay", "10 ms",
                "debug.inject-failure.operator", "per-origin",
                "debug.inject-failure.after-records", "300",
                "debug.inject-failure.after-checkpoints", "1"));

        assertThat(run.result().status()).isEqualTo(JobStatus.FINISHED);
        assertThat(run.result().restarts()).isEqualTo(1);
        assertThat(run.run().completedBeforeRestart).as("a checkpoint completed before the failure, so the restore path ran").isPositive();
        FlightData.assertExactlyOnce(run.output(), FlightData.groundTruth(limit));
    }

    @Test
    void twoSourceSubtasksMakeTheAggregateAlignTwoChannelsAndAFailureStaysExactlyOnce() throws Exception {
        Run run = runFlightJob(2, Map.of(
                "execution.checkpointing.interval", "5 ms",
                "restart-strategy.fixed-delay.delay", "10 ms",
                "debug.inject-failure.operator", "per-origin",
                "debug.inject-failure.after-records", "6000"));

        assertThat(run.result().status()).isEqualTo(JobStatus.FINISHED);
        assertThat(run.result().restarts()).isEqualTo(1);
        FlightData.assertExactlyOnce(run.output(), FlightData.groundTruth(Integer.MAX_VALUE));
        assertThat(run.run().completed).anySatisfy(c -> assertThat(c.subtasks().keySet())
                .anySatisfy(t -> assertThat(t.vertexId()).isEqualTo("flights")));
    }

    @Test
    void exampleJobFileParsesAgainstInstalledPlugins() throws Exception {
        Path example = Path.of("../../examples/flight-delays.json");
        JobGraph job = parser().parse(Files.readString(example), example.getParent(), Map.of());
        assertThat(job.name()).isEqualTo("flight-delays");
        assertThat(job.vertices()).extracting(v -> v.id()).containsExactly("flights", "per-origin", "out");
    }

    private Run runFlightJob(Map<String, String> overrides) throws Exception {
        return runFlightJob(1, overrides);
    }

    private Run runFlightJob(int sourceParallelism, Map<String, String> overrides) throws Exception {
        return runFlightJob(sourceParallelism, 0, 0, overrides);
    }

    private Run runFlightJob(int sourceParallelism, long limit, long sleepMsPerRecord, Map<String, String> overrides) throws Exception {
        Path out = tmp.resolve("out");
        String json = FlightData.job(tmp.resolve("checkpoints"), sourceParallelism, limit, sleepMsPerRecord, out);
        JobRun run = JobRun.run(engine, json, tmp, overrides);
        return new Run(run, out);
    }

    private JobSpecParser parser() {
        return new JobSpecParser(engine.services().plugins(), JsonProvider.provider());
    }

    /** A finished run and where its output went. */
    private record Run(JobRun run, Path output) {
        JobResult result() {
            return run.result;
        }
    }
}
