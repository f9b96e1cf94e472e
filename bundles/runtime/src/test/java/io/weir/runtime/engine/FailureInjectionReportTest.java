package io.weir.runtime.engine;

import io.weir.core.config.Configuration;
import io.weir.core.coordination.CompletedCheckpointStats;
import io.weir.core.engine.JobListener;
import io.weir.core.engine.JobResult;
import io.weir.core.engine.JobStatus;
import io.weir.core.job.JobGraph;
import io.weir.core.job.JobSpecParser;
import jakarta.json.spi.JsonProvider;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code debug.inject-failure.*}: a failure that cannot fire is reported at the end of the run
 * (a WARN and {@link JobListener#onWarning}), one that fired is not, and one waiting for a completed
 * checkpoint fires even when the input is small enough to be processed before the first checkpoint.
 */
class FailureInjectionReportTest {
    @TempDir
    Path tmp;
    private final LocalEngine engine = LocalEngine.fromServiceLoader(getClass().getClassLoader(), Configuration.empty());

    @AfterEach
    void stopEngine() {
        engine.close();
    }

    /** datagen (100 rows) → discard sink {@code out}. */
    private static final String SMALL_JOB = """
            {"name": "inject", "config": {"execution.checkpointing.dir": "checkpoints"},
             "operators": [
               {"id": "src", "type": "datagen", "config": {"limit": 100}},
               {"id": "out", "type": "discard", "inputs": ["src"]}]}
            """;

    @Test
    void injectionThatCannotFireIsReportedAtTheEndNamingTheOptions() throws Exception {
        Recorder run = run(SMALL_JOB, Map.of("debug.inject-failure.operator", "out", "debug.inject-failure.after-records", "1000"));

        assertThat(run.result.status()).isEqualTo(JobStatus.FINISHED);
        assertThat(run.result.restarts()).isZero();
        assertThat(run.warnings).containsExactly("the failure injection did not fire: debug.inject-failure.operator=out asked"
                + " subtask 0 of 'out' to fail at its first record after debug.inject-failure.after-records=1000 records, but the"
                + " job finished first (completed checkpoints: 1); lower debug.inject-failure.after-records below the records"
                + " that subtask receives");
        assertThat(run.events).as("the warning comes before the terminal status").containsSubsequence("warning", "FINISHED");
    }

    @Test
    void injectionThatFiredIsNotReported() throws Exception {
        Recorder run = run(SMALL_JOB, Map.of("debug.inject-failure.operator", "out", "debug.inject-failure.after-records", "50",
                "restart-strategy.fixed-delay.delay", "10 ms"));

        assertThat(run.result.status()).isEqualTo(JobStatus.FINISHED);
        assertThat(run.result.restarts()).isEqualTo(1);
        assertThat(run.warnings).isEmpty();
    }

    @Test
    void jobWithoutInjectionGetsTheCallersOwnListener() throws Exception {
        JobGraph job = new JobSpecParser(engine.services().plugins(), JsonProvider.provider()).parse(SMALL_JOB, tmp, Map.of());
        JobListener listener = stats -> { };
        assertThat(FailureInjectionReport.wrapIfInjecting(job, listener)).isSameAs(listener);
    }

    /**
     * The README's failure example (the 20k flights, failure after 5000 records of subtask 0 and one
     * completed checkpoint) with the first checkpoint 1 s away: well after an unpaced run has
     * processed the whole input (~0.3 s), so without pacing the failure never fires. Paced at 1 ms
     * per record from record 5000, subtask 0 still has thousands of records when the checkpoint
     * completes, however fast the machine.
     */
    @Test
    void injectionWaitingForACheckpointFiresEvenWhenTheInputWouldEndFirst() throws Exception {
        Path data = Path.of("../../examples/data/flights-20k.json").toAbsolutePath().normalize();
        String json = """
                {"name": "flight-delays", "config": {"execution.checkpointing.interval": "1 s", "execution.checkpointing.dir": "checkpoints"},
                 "operators": [
                   {"id": "flights", "type": "file", "config": {"path": "%s",
                     "schema": {"date": "string", "delay": "long", "distance": "long", "origin": "string", "destination": "string"}}},
                   {"id": "per-origin", "type": "keyed-aggregate", "parallelism": 2,
                    "inputs": [{"from": "flights", "partitioning": "hash", "keys": ["origin"]}],
                    "config": {"key": ["origin"], "aggregates": [{"fn": "count", "as": "flights"}]}},
                   {"id": "out", "type": "discard", "parallelism": 2, "inputs": ["per-origin"]}]}
                """.formatted(data);
        Recorder run = run(json, Map.of("debug.inject-failure.operator", "per-origin", "debug.inject-failure.after-records", "5000",
                "debug.inject-failure.after-checkpoints", "1", "restart-strategy.fixed-delay.delay", "10 ms",
                // small buffers keep little data in flight, so the barrier is not queued behind the rest of the input
                "taskmanager.memory.segment-size", "2048"));

        assertThat(run.result.status()).isEqualTo(JobStatus.FINISHED);
        assertThat(run.result.restarts()).isEqualTo(1);
        assertThat(run.restored).as("restored from a completed checkpoint").isNotEmpty();
        assertThat(run.warnings).isEmpty();
    }

    private Recorder run(String json, Map<String, String> overrides) throws Exception {
        JobGraph job = new JobSpecParser(engine.services().plugins(), JsonProvider.provider()).parse(json, tmp, overrides);
        Recorder recorder = new Recorder();
        recorder.result = engine.submit(job, recorder).result().get(120, TimeUnit.SECONDS);
        return recorder;
    }

    /** Records warnings, restores and the order of warnings and status changes. */
    private static final class Recorder implements JobListener {
        final List<String> warnings = new CopyOnWriteArrayList<>();
        final List<String> events = new CopyOnWriteArrayList<>();
        final List<Long> restored = new CopyOnWriteArrayList<>();
        JobResult result;

        @Override
        public void onCompleted(CompletedCheckpointStats stats) {
        }

        @Override
        public void onWarning(String jobName, String message) {
            warnings.add(message);
            events.add("warning");
        }

        @Override
        public void onStatusChange(String jobName, JobStatus from, JobStatus to) {
            events.add(to.name());
        }

        @Override
        public void onRestore(String jobName, long checkpointId, String pointer) {
            restored.add(checkpointId);
        }
    }
}
