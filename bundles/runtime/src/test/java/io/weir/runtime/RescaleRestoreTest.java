package io.weir.runtime;

import io.weir.core.config.Configuration;
import io.weir.core.coordination.CompletedCheckpointStats;
import io.weir.core.engine.JobStatus;
import io.weir.runtime.engine.LocalEngine;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A job stopped after a checkpoint and restored with other parallelisms (issue 7, "Rescaling on
 * restore"): run 1 fails for good (no restart attempts) after a checkpoint, run 2 is the same job
 * with another parallelism of the keyed aggregate and the 2PC sink and resumes from run 1's latest
 * checkpoint. The committed output is checked against the ground truth computed from the data file
 * ({@link FlightData}): keyed state restored by key-group ranges, in-flight data of unaligned
 * checkpoints redistributed by key, and every recorded sink transaction committed exactly once.
 */
class RescaleRestoreTest {
    private static final int LIMIT = 3000;

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

    /** file source (p=1) → hash by origin → count and average delay (p={@code aggregates}, 1 ms per record) → rebalance → 2PC file sink (p={@code sinks}). */
    private String job(int sources, int aggregates, int sinks) {
        return """
                {"name": "flight-delays",
                 "config": {"execution.checkpointing.dir": "%s"},
                 "operators": [
                   {"id": "flights", "type": "file", "parallelism": %d, "config": {"path": "%s", "limit": %d,
                     "schema": {"date": "string", "delay": "long", "distance": "long", "origin": "string", "destination": "string"}}},
                   {"id": "per-origin", "type": "keyed-aggregate", "parallelism": %d,
                    "inputs": [{"from": "flights", "partitioning": "hash", "keys": ["origin"]}],
                    "config": {"key": ["origin"], "sleep-ms-per-record": 1,
                               "aggregates": [{"fn": "count", "as": "flights"}, {"fn": "avg", "field": "delay", "as": "avg_delay"}]}},
                   {"id": "out", "type": "file-2pc", "parallelism": %d, "inputs": [{"from": "per-origin", "partitioning": "rebalance"}], "config": {"path": "%s"}}
                 ]}
                """.formatted(tmp.resolve("checkpoints"), sources, FlightData.DATA, LIMIT, aggregates, sinks, tmp.resolve("out"));
    }

    /**
     * Checkpoints every 30 ms on small buffers; the aggregate's subtask 0 fails after 500 records and a checkpoint; no
     * restarts. 500: the fewest records subtask 0 gets of the 3000 is 687 (of 4 subtasks, Flink's key placement).
     */
    private static Map<String, String> failingAfterACheckpoint(boolean unaligned) {
        Map<String, String> m = new HashMap<>(Map.of(
                "execution.checkpointing.interval", "30 ms",
                "taskmanager.memory.segment-size", "2048",
                "restart-strategy.fixed-delay.attempts", "0",
                "debug.inject-failure.operator", "per-origin",
                "debug.inject-failure.after-records", "500",
                "debug.inject-failure.after-checkpoints", "1"));
        m.put("execution.checkpointing.unaligned.enabled", String.valueOf(unaligned));
        return m;
    }

    private static Map<String, String> resumed(boolean unaligned) {
        return Map.of("execution.checkpointing.interval", "30 ms", "taskmanager.memory.segment-size", "2048",
                "execution.checkpointing.unaligned.enabled", String.valueOf(unaligned));
    }

    /** Runs the job at {@code (aggregates, sinks)} until it fails after a checkpoint; @return that checkpoint */
    private CompletedCheckpointStats stoppedAfterACheckpoint(int aggregates, int sinks, boolean unaligned) throws Exception {
        JobRun first = JobRun.run(engine, job(1, aggregates, sinks), tmp, failingAfterACheckpoint(unaligned));
        assertThat(first.result.status()).isEqualTo(JobStatus.FAILED);
        assertThat(first.completed).as("checkpoints of run 1").isNotEmpty();
        return first.completed.get(first.completed.size() - 1);
    }

    private void assertResumedExactlyOnce(CompletedCheckpointStats from, int aggregates, int sinks, boolean unaligned) throws Exception {
        JobRun second = JobRun.run(engine, job(1, aggregates, sinks), tmp, resumed(unaligned));

        assertThat(second.result.status()).isEqualTo(JobStatus.FINISHED);
        assertThat(second.restoredFrom).first().isEqualTo(from.checkpointId());
        FlightData.assertExactlyOnce(tmp.resolve("out"), FlightData.groundTruth(LIMIT));
    }

    @Test
    void unalignedCheckpointUnderBackpressureRestoredWithDoubledParallelismIsExactlyOnce() throws Exception {
        CompletedCheckpointStats cp = stoppedAfterACheckpoint(2, 2, true);
        assertThat(cp.persistedDataBytes()).as("in-flight bytes in the checkpoint restored from").isPositive();

        assertResumedExactlyOnce(cp, 4, 4, true);
    }

    @Test
    void unalignedCheckpointUnderBackpressureRestoredWithHalvedParallelismIsExactlyOnce() throws Exception {
        CompletedCheckpointStats cp = stoppedAfterACheckpoint(4, 4, true);
        assertThat(cp.persistedDataBytes()).as("in-flight bytes in the checkpoint restored from").isPositive();

        assertResumedExactlyOnce(cp, 2, 2, true);
    }

    @Test
    void unalignedCheckpointUnderBackpressureRestoredWithTheAggregateTwoToThreeAndTheSinkThreeToOneIsExactlyOnce() throws Exception {
        // KafkaJobTest.restoreWithOtherParallelismsIsExactlyOnce's shape, with in-flight data on both edges: the hash
        // edge's records go to the owners of their key groups among 3, every old link of the rebalance edge into one sink
        CompletedCheckpointStats cp = stoppedAfterACheckpoint(2, 3, true);
        assertThat(cp.persistedDataBytes()).as("in-flight bytes in the checkpoint restored from").isPositive();

        assertResumedExactlyOnce(cp, 3, 1, true);
    }

    @Test
    void alignedCheckpointRestoredWithAnOddParallelismIsExactlyOnce() throws Exception {
        CompletedCheckpointStats cp = stoppedAfterACheckpoint(2, 3, false);

        assertResumedExactlyOnce(cp, 3, 1, false);
    }

    @Test
    void sourceWithAnotherParallelismIsRefusedBeforeAnythingRuns() throws Exception {
        JobRun first = JobRun.run(engine, job(2, 2, 2), tmp, failingAfterACheckpoint(false));
        assertThat(first.result.status()).isEqualTo(JobStatus.FAILED);
        List<String> committedBefore = committedRows();

        JobRun second = JobRun.run(engine, job(1, 2, 2), tmp, resumed(false));

        assertThat(second.result.status()).isEqualTo(JobStatus.FAILED);
        assertThat(second.result.restarts()).isZero();
        assertThat(second.result.failure()).hasMessageContaining("source 'flights'")
                .hasMessageContaining("restore with the checkpoint's parallelism 2");
        assertThat(committedRows()).as("nothing written by the refused run").isEqualTo(committedBefore);
    }

    @Test
    void changedMaxParallelismIsRefusedNamingTheKeyedOperator() throws Exception {
        stoppedAfterACheckpoint(2, 2, false);
        Map<String, String> changed = new HashMap<>(resumed(false));
        changed.put("pipeline.max-parallelism", "64");

        JobRun second = JobRun.run(engine, job(1, 2, 2), tmp, changed);

        assertThat(second.result.status()).isEqualTo(JobStatus.FAILED);
        assertThat(second.result.failure()).hasMessageContaining("'per-origin'").hasMessageContaining("128 key groups")
                .hasMessageContaining("pipeline.max-parallelism back to 128");
    }

    private List<String> committedRows() throws Exception {
        return FlightData.committedRows(tmp.resolve("out")).stream().map(Object::toString).sorted().toList();
    }
}
