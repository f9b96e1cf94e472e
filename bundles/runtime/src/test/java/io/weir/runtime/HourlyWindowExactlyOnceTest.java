package io.weir.runtime;

import io.weir.core.config.Configuration;
import io.weir.core.coordination.CompletedCheckpointStats;
import io.weir.core.engine.JobHandle;
import io.weir.core.engine.JobStatus;
import io.weir.core.job.JobGraph;
import io.weir.core.job.JobSpecParser;
import io.weir.runtime.engine.LocalEngine;
import jakarta.json.Json;
import jakarta.json.JsonArray;
import jakarta.json.JsonObject;
import jakarta.json.JsonReader;
import jakarta.json.JsonValue;
import jakarta.json.spi.JsonProvider;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.Reader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The hourly window job (examples/flight-delays-hourly.json: average delay per origin per event-time hour) on the
 * embedded engine, on the heap and the RocksDB backend (incremental checkpoints), with failures injected, with a
 * restore at another parallelism, and switching backend through a savepoint. Ground truth: the test groups
 * the data file by origin and hour itself; the committed output must hold exactly one row per (origin, hour) with
 * the true count and mean delay — a window fired twice (after a restore) or lost would show.
 */
class HourlyWindowExactlyOnceTest {
    private static final DateTimeFormatter FORMAT = DateTimeFormatter.ofPattern("yyyy/MM/dd HH:mm");
    private static final long HOUR = 3_600_000L;

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

    /** file source (p=1, watermarks from "date") → hash by origin → hourly window (p=windows) → rebalance → 2PC sink (p=sinks). */
    private String job(int windows, int sinks, long limit) {
        return job(windows, sinks, limit, -1);
    }

    /**
     * @param paceMs if >= 0, a "pace" operator chained to the source pauses this many ms per record (a job still
     *        running when a savepoint is taken); the job with and without it are different graphs
     */
    private String job(int windows, int sinks, long limit, long paceMs) {
        String pace = paceMs < 0 ? "" : """
                   {"id": "pace", "type": "project", "parallelism": 1, "inputs": ["flights"],
                    "config": {"fields": ["date", "delay", "distance", "origin", "destination"], "sleep-ms-per-record": %d}},
                """.formatted(paceMs);
        return """
                {"name": "flight-delays-hourly",
                 "config": {"execution.checkpointing.dir": "%s"},
                 "operators": [
                   {"id": "flights", "type": "file", "parallelism": 1, "config": {"path": "%s", "limit": %d,
                     "schema": {"date": "string", "delay": "long", "distance": "long", "origin": "string", "destination": "string"},
                     "timestamp-field": "date", "timestamp-format": "yyyy/MM/dd HH:mm", "watermark.max-out-of-orderness": "5 min"}},
                %s   {"id": "hourly", "type": "window-aggregate", "parallelism": %d,
                    "inputs": [{"from": "%s", "partitioning": "hash", "keys": ["origin"]}],
                    "config": {"key": ["origin"], "timestamp-field": "date", "timestamp-format": "yyyy/MM/dd HH:mm",
                               "window": "tumbling", "size": "1 h",
                               "aggregates": [{"fn": "count", "as": "flights"}, {"fn": "avg", "field": "delay", "as": "avg_delay"}]}},
                   {"id": "out", "type": "file-2pc", "parallelism": %d, "inputs": [{"from": "hourly", "partitioning": "rebalance"}],
                    "config": {"path": "%s"}}
                 ]}
                """.formatted(tmp.resolve("checkpoints"), FlightData.DATA, limit, pace, windows, paceMs < 0 ? "flights" : "pace",
                sinks, tmp.resolve("out"));
    }

    /**
     * @param backend {@code hashmap} or {@code rocksdb} (then with incremental checkpoints)
     * @return the overrides plus the state backend's
     */
    private Map<String, String> onBackend(String backend, Map<String, String> overrides) {
        Map<String, String> m = new HashMap<>(overrides);
        m.put("state.backend.type", backend);
        if (backend.equals("rocksdb")) {
            m.put("state.backend.incremental", "true");
            m.put("state.backend.rocksdb.localdir", tmp.resolve("rocksdb").toString());
        }
        return m;
    }

    /** "origin@hourStartMs" → [count, sum of delay] over the first {@code limit} flights, grouped by the test. */
    private static Map<String, long[]> hourlyTruth(long limit) throws Exception {
        Map<String, long[]> truth = new TreeMap<>();
        try (Reader r = Files.newBufferedReader(FlightData.DATA); JsonReader jr = Json.createReader(r)) {
            JsonArray all = jr.readArray();
            for (JsonValue v : all.subList(0, (int) Math.min(limit, all.size()))) {
                JsonObject o = v.asJsonObject();
                long ts = LocalDateTime.parse(o.getString("date"), FORMAT).toInstant(ZoneOffset.UTC).toEpochMilli();
                long[] acc = truth.computeIfAbsent(o.getString("origin") + "@" + (ts - ts % HOUR), k -> new long[2]);
                acc[0]++;
                acc[1] += o.getJsonNumber("delay").longValue();
            }
        }
        return truth;
    }

    private void assertExactlyOncePerOriginAndHour(long limit) throws Exception {
        Map<String, long[]> truth = hourlyTruth(limit);
        List<JsonObject> rows = FlightData.committedRows(tmp.resolve("out"));
        Map<String, Integer> seen = new HashMap<>();
        for (JsonObject o : rows) {
            long start = o.getJsonNumber("window_start").longValue();
            assertThat(o.getJsonNumber("window_end").longValue()).isEqualTo(start + HOUR);
            String k = o.getString("origin") + "@" + start;
            seen.merge(k, 1, Integer::sum);
            long[] expected = truth.get(k);
            assertThat(expected).as("row for a window with no flights: %s", o).isNotNull();
            assertThat(o.getJsonNumber("flights").longValue()).as("count of %s", k).isEqualTo(expected[0]);
            assertThat(o.getJsonNumber("avg_delay").doubleValue()).as("mean delay of %s", k)
                    .isCloseTo((double) expected[1] / expected[0], org.assertj.core.api.Assertions.within(1e-9));
        }
        assertThat(seen).as("one row per (origin, hour), each exactly once").hasSize(truth.size());
        assertThat(seen.values()).containsOnly(1);
        try (var files = Files.list(tmp.resolve("out"))) {
            assertThat(files.map(p -> p.getFileName().toString())).noneMatch(n -> n.endsWith(".inprogress"));
        }
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"hashmap", "rocksdb"})
    void failureMidRunRestoresWindowsAndTimersAndEmitsEachWindowExactlyOnce(String backend) throws Exception {
        long limit = 20_000;
        JobRun run = JobRun.run(engine, job(2, 2, limit), tmp, onBackend(backend, Map.of(
                "execution.checkpointing.interval", "10 ms",
                "taskmanager.memory.segment-size", "2048",
                "pipeline.auto-watermark-interval", "5 ms",
                "restart-strategy.fixed-delay.delay", "10 ms",
                "debug.inject-failure.operator", "hourly",
                "debug.inject-failure.after-records", "4000",
                "debug.inject-failure.after-checkpoints", "2")));

        assertThat(run.result.status()).isEqualTo(JobStatus.FINISHED);
        assertThat(run.result.restarts()).isEqualTo(1);
        assertThat(run.completedBeforeRestart).as("checkpoints before the failure, so the restore path ran").isPositive();
        assertExactlyOncePerOriginAndHour(limit);
    }

    /**
     * Unaligned checkpoints: barriers overtake queued rows and watermarks; only rows are persisted as in-flight
     * data, so after the restore the watermark starts over from Long.MIN_VALUE and no window fires early or twice.
     */
    @Test
    void unalignedCheckpointsOvertakingWatermarksStillEmitEachWindowExactlyOnce() throws Exception {
        long limit = 8000;
        JobRun run = JobRun.run(engine, job(2, 2, limit), tmp, Map.of(
                "execution.checkpointing.interval", "10 ms",
                "execution.checkpointing.unaligned.enabled", "true",
                "taskmanager.memory.segment-size", "1024",
                "pipeline.auto-watermark-interval", "2 ms",
                "restart-strategy.fixed-delay.delay", "10 ms",
                "debug.inject-failure.operator", "hourly",
                "debug.inject-failure.after-records", "2000",
                "debug.inject-failure.after-checkpoints", "2"));

        assertThat(run.result.status()).isEqualTo(JobStatus.FINISHED);
        assertThat(run.result.restarts()).isEqualTo(1);
        assertThat(run.completed).anySatisfy(c -> assertThat(c.persistedDataBytes()).as("in-flight rows persisted").isPositive());
        assertExactlyOncePerOriginAndHour(limit);
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"hashmap", "rocksdb"})
    void restoreWithAnotherParallelismMovesWindowsAndTimersByKeyGroup(String backend) throws Exception {
        long limit = 6000;
        Map<String, String> failing = Map.of(
                "execution.checkpointing.interval", "10 ms",
                "taskmanager.memory.segment-size", "2048",
                "pipeline.auto-watermark-interval", "5 ms",
                "restart-strategy.fixed-delay.attempts", "0",
                "debug.inject-failure.operator", "hourly",
                "debug.inject-failure.after-records", "1500",
                "debug.inject-failure.after-checkpoints", "2");
        JobRun first = JobRun.run(engine, job(2, 2, limit), tmp, onBackend(backend, failing));
        assertThat(first.result.status()).isEqualTo(JobStatus.FAILED);
        assertThat(first.completed).isNotEmpty();
        CompletedCheckpointStats last = first.completed.get(first.completed.size() - 1);

        JobRun second = JobRun.run(engine, job(3, 1, limit), tmp, onBackend(backend, Map.of("execution.checkpointing.interval", "10 ms")));

        assertThat(second.result.status()).isEqualTo(JobStatus.FINISHED);
        assertThat(second.restoredFrom).first().isEqualTo(last.checkpointId());
        assertExactlyOncePerOriginAndHour(limit);
    }

    /**
     * Stop-with-savepoint mid-run (no drain: open windows and their timers are in the savepoint) on one backend,
     * resume on the other: windows fire once, from timers written by the first backend (FLINK-21486).
     */
    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource({"hashmap, rocksdb", "rocksdb, hashmap"})
    void aSavepointWithTimersOfOneBackendRestoresOnTheOtherExactlyOnce(String first, String second) throws Exception {
        long limit = 6000;
        JobGraph paced = new JobSpecParser(engine.services().plugins(), JsonProvider.provider()).parse(job(2, 2, limit, 1), tmp,
                onBackend(first, Map.of("execution.checkpointing.interval", "30 ms", "taskmanager.memory.segment-size", "2048")));
        JobRun one = new JobRun();
        JobHandle handle = engine.submit(paced, one);
        await().atMost(Duration.ofSeconds(60)).until(() -> !one.completed.isEmpty());
        Path savepoint = handle.stopWithSavepoint(Optional.of(tmp.resolve("savepoints")), false).get(60, TimeUnit.SECONDS);
        assertThat(handle.result().get(60, TimeUnit.SECONDS).status()).isEqualTo(JobStatus.FINISHED);
        long savepointId = one.completed.get(one.completed.size() - 1).checkpointId();
        assertThat(hourlyTruth(limit).size() - FlightData.committedRows(tmp.resolve("out")).size())
                .as("windows still open at the savepoint").isPositive();

        JobRun two = JobRun.run(engine, job(2, 2, limit, 0), tmp, onBackend(second, Map.of(
                "execution.checkpointing.interval", "30 ms", "execution.savepoint.path", savepoint.toString())));

        assertThat(two.result.status()).isEqualTo(JobStatus.FINISHED);
        assertThat(two.restoredFrom).first().isEqualTo(savepointId);
        assertExactlyOncePerOriginAndHour(limit);
    }

    @Test
    void exampleJobFileParsesAgainstInstalledPlugins() throws Exception {
        Path example = Path.of("../../examples/flight-delays-hourly.json");
        JobGraph job = new JobSpecParser(engine.services().plugins(), JsonProvider.provider())
                .parse(Files.readString(example), example.getParent(), Map.of());
        assertThat(job.vertices()).extracting(v -> v.id()).containsExactly("flights", "hourly", "out");
        assertThat(job.vertices().get(1).outputSchema().names())
                .containsExactly("origin", "window_start", "window_end", "flights", "avg_delay");
    }
}
