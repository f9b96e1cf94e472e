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

        assertThat(run.result.status()).isEqualTo(JobStatus.FINISHED);
        assertThat(run.result.restarts()).isZero();
        assertExactlyOnce(run.output);
        assertThat(run.completed).isNotEmpty();
        assertThat(run.completed.get(run.completed.size() - 1).isFinal()).isTrue();
    }

    @Test
    void failureMidRunRestoresAndStillCommitsExactlyOnce() throws Exception {
        Run run = runFlightJob(Map.of(
                "execution.checkpointing.interval", "5 ms",
                "restart-strategy.fixed-delay.delay", "10 ms",
                "debug.inject-failure.operator", "per-origin",
                "debug.inject-failure.after-records", "8000"));

        assertThat(run.result.status()).isEqualTo(JobStatus.FINISHED);
        assertThat(run.result.restarts()).isEqualTo(1);
        assertThat(run.completedBeforeRestart).as("a checkpoint completed before the failure, so the restore path ran").isPositive();
        assertExactlyOnce(run.output);
    }

    @Test
    void twoSourceSubtasksMakeTheAggregateAlignTwoChannelsAndAFailureStaysExactlyOnce() throws Exception {
        Run run = runFlightJob(2, Map.of(
                "execution.checkpointing.interval", "5 ms",
                "restart-strategy.fixed-delay.delay", "10 ms",
                "debug.inject-failure.operator", "per-origin",
                "debug.inject-failure.after-records", "6000"));

        assertThat(run.result.status()).isEqualTo(JobStatus.FINISHED);
        assertThat(run.result.restarts()).isEqualTo(1);
        assertExactlyOnce(run.output);
        assertThat(run.completed).anySatisfy(c -> assertThat(c.subtasks().keySet())
                .anySatisfy(t -> assertThat(t.vertexId()).isEqualTo("flights")));
    }

    @Test
    void exampleJobFileParsesAgainstInstalledPlugins() throws Exception {
        Path example = Path.of("../../examples/flight-delays.json");
        JobGraph job = parser().parse(Files.readString(example), example.getParent(), Map.of());
        assertThat(job.name()).isEqualTo("flight-delays");
        assertThat(job.vertices()).extracting(v -> v.id()).containsExactly("flights", "per-origin", "out");
    }

    private void assertExactlyOnce(Path output) throws Exception {
        Map<String, long[]> truth = FlightData.groundTruth();
        List<JsonObject> rows = FlightData.committedRows(output);
        assertThat(rows).hasSize(truth.values().stream().mapToInt(a -> (int) a[0]).sum());
        Map<String, List<Long>> counts = FlightData.countsByOrigin(rows);
        assertThat(counts.keySet()).isEqualTo(truth.keySet());
        Map<String, Double> lastAvg = new HashMap<>();
        for (JsonObject o : rows) {
            long n = truth.get(o.getString("origin"))[0];
            if (o.getJsonNumber("flights").longValue() == n) {
                lastAvg.put(o.getString("origin"), o.getJsonNumber("avg_delay").doubleValue());
            }
        }
        for (Map.Entry<String, long[]> e : truth.entrySet()) {
            List<Long> got = new ArrayList<>(counts.get(e.getKey()));
            Collections.sort(got);
            assertThat(got).as("counts of origin %s", e.getKey())
                    .isEqualTo(LongStream.rangeClosed(1, e.getValue()[0]).boxed().toList());
            assertThat(lastAvg.get(e.getKey())).as("final average delay of %s", e.getKey())
                    .isCloseTo((double) e.getValue()[1] / e.getValue()[0], within(1e-9));
        }
        try (Stream<Path> files = Files.list(output)) {
            assertThat(files.map(p -> p.getFileName().toString())).noneMatch(n -> n.endsWith(".inprogress"));
        }
    }

    private Run runFlightJob(Map<String, String> overrides) throws Exception {
        return runFlightJob(1, overrides);
    }

    private Run runFlightJob(int sourceParallelism, Map<String, String> overrides) throws Exception {
        Path out = tmp.resolve("out");
        String json = """
                {"name": "flight-delays",
                 "config": {"execution.checkpointing.dir": "%s"},
                 "operators": [
                   {"id": "flights", "type": "file", "parallelism": %d, "config": {"path": "%s",
                     "schema": {"date": "string", "delay": "long", "distance": "long", "origin": "string", "destination": "string"}}},
                   {"id": "per-origin", "type": "keyed-aggregate", "parallelism": 2,
                    "inputs": [{"from": "flights", "partitioning": "hash", "keys": ["origin"]}],
                    "config": {"key": ["origin"], "aggregates": [{"fn": "count", "as": "flights"}, {"fn": "avg", "field": "delay", "as": "avg_delay"}]}},
                   {"id": "out", "type": "file-2pc", "parallelism": 2, "inputs": ["per-origin"], "config": {"path": "%s"}}
                 ]}
                """.formatted(tmp.resolve("checkpoints"), sourceParallelism, FlightData.DATA, out);
        JobGraph job = parser().parse(json, tmp, overrides);
        Run run = new Run();
        run.output = out;
        JobHandle handle = engine.submit(job, run);
        run.result = handle.result().get(60, TimeUnit.SECONDS);
        if (run.result.failure() != null) {
            run.result.failure().printStackTrace();
        }
        return run;
    }

    private JobSpecParser parser() {
        return new JobSpecParser(engine.services().plugins(), JsonProvider.provider());
    }

    /** Records what the job reports. */
    private static final class Run implements JobListener {
        final List<CompletedCheckpointStats> completed = new CopyOnWriteArrayList<>();
        volatile int completedBeforeRestart = -1;
        JobResult result;
        Path output;

        @Override
        public void onCompleted(CompletedCheckpointStats stats) {
            completed.add(stats);
        }

        @Override
        public void onRestart(String jobName, int attempt, Throwable cause) {
            completedBeforeRestart = completed.size();
        }
    }
}
