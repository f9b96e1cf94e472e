package io.weir.runtime;

import io.weir.core.config.Configuration;
import io.weir.core.coordination.CompletedCheckpointStats;
import io.weir.core.engine.JobStatus;
import io.weir.runtime.engine.LocalEngine;
import jakarta.json.JsonObject;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.LongStream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Exactly-once after restoring from unaligned checkpoints taken under backpressure while data was
 * in flight (PROTOCOL.md §6), against ground truths computed in the test: the flight job, and the
 * backpressure job of PROTOCOL.md §5 (datagen → keyed count), each with a failure injected; and
 * the same after checkpoints that switched to unaligned because of the aligned-checkpoint timeout.
 */
class UnalignedExactlyOnceTest {
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
    void flightJobRestoredFromUnalignedCheckpointWithInflightDataIsExactlyOnce() throws Exception {
        Path out = tmp.resolve("out");
        JobRun run = JobRun.run(engine, FlightData.job(tmp.resolve("checkpoints"), 1, 3000, 1, out), tmp,
                unalignedFailing("per-origin", 800));

        assertThat(run.result.status()).isEqualTo(JobStatus.FINISHED);
        assertThat(run.result.restarts()).isEqualTo(1);
        assertRestoredFromUnalignedCheckpointWithInflightData(run);
        FlightData.assertExactlyOnce(out, FlightData.groundTruth(3000));
    }

    @Test
    void backpressureJobRestoredFromUnalignedCheckpointIsExactlyOnce() throws Exception {
        Path out = tmp.resolve("out");
        JobRun run = JobRun.run(engine, datagenJob(out, 3000), tmp, unalignedFailing("counter", 700));

        assertThat(run.result.status()).isEqualTo(JobStatus.FINISHED);
        assertThat(run.result.restarts()).isEqualTo(1);
        assertRestoredFromUnalignedCheckpointWithInflightData(run);
        assertCountsExactlyOnce(out, datagenTruth(3000, 2, 16));
    }

    @Test
    void checkpointsSwitchedByTheAlignedTimeoutRestoreExactlyOnce() throws Exception {
        Path out = tmp.resolve("out");
        JobRun run = JobRun.run(engine, datagenJob(out, 3000), tmp,
                unalignedFailing("counter", 700, "execution.checkpointing.aligned-checkpoint-timeout", "5 ms"));

        assertThat(run.result.status()).isEqualTo(JobStatus.FINISHED);
        assertThat(run.result.restarts()).isEqualTo(1);
        assertThat(run.completed.subList(0, run.completedBeforeRestart))
                .as("some checkpoint before the failure switched to unaligned")
                .anySatisfy(c -> assertThat(c.subtasks().values()).anySatisfy(m -> assertThat(m.unaligned()).isTrue()));
        assertCountsExactlyOnce(out, datagenTruth(3000, 2, 16));
    }

    @Test
    void rebalanceAndUnchainedForwardEdgesRestoreInflightDataExactlyOnce() throws Exception {
        Path out = tmp.resolve("out");
        String job = """
                {"name": "rebalanced",
                 "config": {"execution.checkpointing.dir": "%s", "pipeline.operator-chaining": false},
                 "operators": [
                   {"id": "source", "type": "datagen", "parallelism": 2, "config": {"record-size": 200, "keys": 16, "limit": 3000}},
                   {"id": "proj", "type": "project", "parallelism": 2, "inputs": [{"from": "source", "partitioning": "rebalance"}],
                    "config": {"fields": ["key", "seq"], "sleep-ms-per-record": 1}},
                   {"id": "sink", "type": "file-2pc", "parallelism": 2, "inputs": [{"from": "proj", "partitioning": "forward"}],
                    "config": {"path": "%s"}}
                 ]}
                """.formatted(tmp.resolve("checkpoints"), out);
        JobRun run = JobRun.run(engine, job, tmp, unalignedFailing("proj", 700));

        assertThat(run.result.status()).isEqualTo(JobStatus.FINISHED);
        assertThat(run.result.restarts()).isEqualTo(1);
        assertRestoredFromUnalignedCheckpointWithInflightData(run);
        // each subtask emits seq 0 .. share-1 once: every seq value exactly as often as there are subtasks reaching it
        Map<Long, Long> expected = new TreeMap<>();
        for (int i = 0; i < 2; i++) {
            for (long seq = 0; seq < 1500; seq++) {
                expected.merge(seq, 1L, Long::sum);
            }
        }
        Map<Long, Long> got = new TreeMap<>();
        for (JsonObject o : FlightData.committedRows(out)) {
            got.merge(o.getJsonNumber("seq").longValue(), 1L, Long::sum);
        }
        assertThat(got).isEqualTo(expected);
    }

    @Test
    void operatorWithTwoUpstreamVerticesRestoresInflightDataOfBothExactlyOnce() throws Exception {
        Path out = tmp.resolve("out");
        String job = """
                {"name": "union",
                 "config": {"execution.checkpointing.dir": "%s"},
                 "operators": [
                   {"id": "a", "type": "datagen", "parallelism": 1, "config": {"record-size": 200, "keys": 16, "limit": 1200}},
                   {"id": "b", "type": "datagen", "parallelism": 2, "config": {"record-size": 200, "keys": 16, "limit": 1800}},
                   {"id": "counter", "type": "keyed-aggregate", "parallelism": 2,
                    "inputs": [{"from": "a", "partitioning": "hash", "keys": ["key"]}, {"from": "b", "partitioning": "hash", "keys": ["key"]}],
                    "config": {"key": ["key"], "aggregates": [{"fn": "count", "as": "count"}], "sleep-ms-per-record": 1}},
                   {"id": "sink", "type": "file-2pc", "parallelism": 2, "inputs": ["counter"], "config": {"path": "%s"}}
                 ]}
                """.formatted(tmp.resolve("checkpoints"), out);
        JobRun run = JobRun.run(engine, job, tmp, unalignedFailing("counter", 700));

        assertThat(run.result.status()).isEqualTo(JobStatus.FINISHED);
        assertThat(run.result.restarts()).isEqualTo(1);
        assertRestoredFromUnalignedCheckpointWithInflightData(run);
        Map<Long, Long> truth = new TreeMap<>(datagenTruth(1200, 1, 16));
        datagenTruth(1800, 2, 16).forEach((k, n) -> truth.merge(k, n, Long::sum));
        assertCountsExactlyOnce(out, truth);
    }

    @Test
    void atLeastOnceModeNeverLosesARecordAcrossAFailure() throws Exception {
        Path out = tmp.resolve("out");
        JobRun run = JobRun.run(engine, datagenJob(out, 2000), tmp, Map.of(
                "execution.checkpointing.mode", "AT_LEAST_ONCE",
                "execution.checkpointing.interval", "30 ms",
                "restart-strategy.fixed-delay.delay", "10 ms",
                "debug.inject-failure.operator", "counter",
                "debug.inject-failure.after-records", "500"));

        assertThat(run.result.status()).isEqualTo(JobStatus.FINISHED);
        Map<Long, Long> truth = datagenTruth(2000, 2, 16);
        Map<Long, List<Long>> counts = countsByKey(out);
        for (Map.Entry<Long, Long> e : truth.entrySet()) {
            assertThat(counts.get(e.getKey())).as("key %s", e.getKey())
                    .containsAll(LongStream.rangeClosed(1, e.getValue()).boxed().toList());
        }
    }

    /**
     * Unaligned checkpoints every 30 ms, restarts after 10 ms, and subtask 0 of {@code operator} failing once
     * after {@code records} records and a completed checkpoint; {@code extra} adds key, value pairs.
     */
    private static Map<String, String> unalignedFailing(String operator, int records, String... extra) {
        Map<String, String> overrides = new java.util.HashMap<>(Map.of(
                "execution.checkpointing.unaligned.enabled", "true",
                "execution.checkpointing.interval", "30 ms",
                "restart-strategy.fixed-delay.delay", "10 ms",
                "debug.inject-failure.operator", operator,
                "debug.inject-failure.after-records", String.valueOf(records),
                "debug.inject-failure.after-checkpoints", "1"));
        for (int i = 0; i + 1 < extra.length; i += 2) {
            overrides.put(extra[i], extra[i + 1]);
        }
        return overrides;
    }

    private static void assertRestoredFromUnalignedCheckpointWithInflightData(JobRun run) {
        assertThat(run.completedBeforeRestart).as("checkpoints completed before the failure").isPositive();
        CompletedCheckpointStats restoredFrom = run.lastBeforeRestart();
        assertThat(restoredFrom.persistedDataBytes()).as("in-flight bytes persisted by the checkpoint restored from").isPositive();
        assertThat(restoredFrom.subtasks().values()).allSatisfy(m -> assertThat(m.unaligned()).isTrue());
    }

    /** PROTOCOL.md §5's job, bounded: datagen (p=2, unlimited rate) → hash by key → count (sleeping 1 ms/record) → 2PC file sink. */
    private String datagenJob(Path out, long limit) {
        return """
                {"name": "seed-backpressure",
                 "config": {"execution.checkpointing.dir": "%s"},
                 "operators": [
                   {"id": "source", "type": "datagen", "parallelism": 2, "config": {"record-size": 200, "keys": 16, "limit": %d}},
                   {"id": "counter", "type": "keyed-aggregate", "parallelism": 2,
                    "inputs": [{"from": "source", "partitioning": "hash", "keys": ["key"]}],
                    "config": {"key": ["key"], "aggregates": [{"fn": "count", "as": "count"}], "sleep-ms-per-record": 1}},
                   {"id": "sink", "type": "file-2pc", "parallelism": 2, "inputs": ["counter"], "config": {"path": "%s"}}
                 ]}
                """.formatted(tmp.resolve("checkpoints"), limit, out);
    }

    /**
     * Records per key, computed from datagen's documented contract: subtask i of p emits its share
     * of the limit (limit / p, one more for the first limit % p subtasks) with seq 0, 1, ... and
     * key = seq % keys.
     */
    private static Map<Long, Long> datagenTruth(long limit, int p, long keys) {
        Map<Long, Long> truth = new TreeMap<>();
        for (int i = 0; i < p; i++) {
            long share = limit / p + (i < limit % p ? 1 : 0);
            for (long seq = 0; seq < share; seq++) {
                truth.merge(seq % keys, 1L, Long::sum);
            }
        }
        return truth;
    }

    private static Map<Long, List<Long>> countsByKey(Path out) throws Exception {
        Map<Long, List<Long>> counts = new HashMap<>();
        for (JsonObject o : FlightData.committedRows(out)) {
            counts.computeIfAbsent(o.getJsonNumber("key").longValue(), k -> new ArrayList<>()).add(o.getJsonNumber("count").longValue());
        }
        return counts;
    }

    private static void assertCountsExactlyOnce(Path out, Map<Long, Long> truth) throws Exception {
        Map<Long, List<Long>> counts = countsByKey(out);
        assertThat(counts.keySet()).isEqualTo(truth.keySet());
        for (Map.Entry<Long, Long> e : truth.entrySet()) {
            List<Long> got = new ArrayList<>(counts.get(e.getKey()));
            Collections.sort(got);
            assertThat(got).as("counts of key %s", e.getKey()).isEqualTo(LongStream.rangeClosed(1, e.getValue()).boxed().toList());
        }
    }
}
