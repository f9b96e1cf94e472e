package io.weir.runtime;

import io.weir.core.checkpoint.CheckpointMetadata;
import io.weir.core.checkpoint.TaskId;
import io.weir.core.config.Configuration;
import io.weir.core.engine.JobStatus;
import io.weir.runtime.engine.LocalEngine;
import io.weir.runtime.faults.InterceptedCoordinators;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Chaos at the checkpoint protocol's named points (issue 6, "end-to-end chaos test"): the
 * flight-delays job with the 2PC file sink is failed over again and again — while {@code _metadata}
 * is being written, right after it became durable (before the store and the sinks hear of it),
 * while a task's ack is on its way, when a checkpoint location is created — with random delays at
 * the same points, up to {@value #FAILURES} times per configuration and at least 50 over all (the final checkpoint fails while
 * failures are left, so a fast machine cannot finish early); then it runs to the end. The
 * committed output must be exactly-once against the ground truth computed from the data file.
 * Each configuration (aligned, unaligned, two concurrent aligned checkpoints) gets its own seed,
 * printed on failure, so a failing interleaving can be replayed.
 */
class CheckpointChaosTest {
    /** Failures injected per configuration at most. */
    private static final int FAILURES = 20;
    /** Failures every configuration reaches; an injection that lands while its attempt is already failing over is lost. */
    private static final int MIN_FAILURES = 12;
    /** Restarts over all configurations of this class (the issue asks for at least 50 in a row). */
    private static final java.util.concurrent.atomic.AtomicInteger TOTAL_RESTARTS = new java.util.concurrent.atomic.AtomicInteger();
    private static final int LIMIT = 3000;

    @TempDir
    Path tmp;
    private final LocalEngine base = LocalEngine.fromServiceLoader(getClass().getClassLoader(), Configuration.empty());

    @AfterEach
    void stop() {
        base.close();
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource({
            "aligned, 1, false, 1, 11",
            "unaligned, 1, true, 1, 22",
            "concurrent-aligned, 2, false, 2, 33"})
    void manyFailoversAtProtocolPointsKeepTheOutputExactlyOnce(String name, int maxConcurrent, boolean unaligned,
            int sourceParallelism, long seed) throws Exception {
        Random random = new Random(seed);
        AtomicInteger attemptsRunning = new AtomicInteger();
        AtomicInteger injected = new AtomicInteger();
        InterceptedCoordinators.Hooks hooks = new InterceptedCoordinators.Hooks() {
            private synchronized boolean roll(double p) {
                return random.nextDouble() < p;
            }

            private synchronized int delayMs() {
                return random.nextInt(4);
            }

            private void maybeFail(String where, double probability, Consumer<String> failJob) {
                pause(delayMs());
                // one failure per attempt, once it runs (a failure while the job restarts is not a new one)
                if (injected.get() < FAILURES && injected.get() == attemptsRunning.get() - 1 && roll(probability)) {
                    injected.incrementAndGet();
                    failJob.accept(where);
                }
            }

            private void maybeFail(String where, Consumer<String> failJob) {
                maybeFail(where, 0.2, failJob);
            }

            /** The final checkpoint always fails while failures are left, so the job cannot finish early. */
            private double finalOrNot(CheckpointMetadata metadata) {
                return metadata.isFinal() ? 1.0 : 0.2;
            }

            @Override
            public void beforeMetadataWritten(CheckpointMetadata metadata, Consumer<String> failJob) {
                maybeFail("while _metadata of checkpoint " + metadata.checkpointId() + " is being written",
                        metadata.isFinal() ? 0.5 : 0.2, failJob);
            }

            @Override
            public void afterMetadataWritten(CheckpointMetadata metadata, Consumer<String> failJob) {
                maybeFail("right after _metadata of checkpoint " + metadata.checkpointId() + " became durable",
                        finalOrNot(metadata), failJob);
            }

            @Override
            public void onInitCheckpoint(long checkpointId, Consumer<String> failJob) {
                maybeFail("when checkpoint " + checkpointId + " starts", failJob);
            }

            @Override
            public void onAck(TaskId task, long checkpointId, Consumer<String> failJob) {
                maybeFail("while the ack of " + task + " for checkpoint " + checkpointId + " is in flight", failJob);
            }
        };
        Map<String, String> config = new HashMap<>(Map.of(
                "taskmanager.memory.segment-size", "2048",
                "execution.checkpointing.interval", "5 ms",
                "execution.checkpointing.max-concurrent-checkpoints", String.valueOf(maxConcurrent),
                "execution.checkpointing.unaligned.enabled", String.valueOf(unaligned),
                "restart-strategy.fixed-delay.attempts", String.valueOf(FAILURES + 5),
                "restart-strategy.fixed-delay.delay", "1 ms"));
        Path out = tmp.resolve("out");
        LocalEngine engine = InterceptedCoordinators.engine(base, hooks); // shares base's threads; base is closed
        JobRun run = JobRun.run(engine, FlightData.job(tmp.resolve("checkpoints"), sourceParallelism, LIMIT, 1, out), tmp,
                config, status -> {
                    if (status == JobStatus.RUNNING) {
                        attemptsRunning.incrementAndGet();
                    }
                });

        assertThat(run.result.status()).as("%s, seed %d", name, seed).isEqualTo(JobStatus.FINISHED);
        FlightData.assertExactlyOnce(out, FlightData.groundTruth(LIMIT));
        assertThat(run.result.restarts()).as("%s, seed %d: injected failures restarted the job", name, seed)
                .isBetween(MIN_FAILURES, FAILURES);
        TOTAL_RESTARTS.addAndGet(run.result.restarts());
    }

    @org.junit.jupiter.api.AfterAll
    static void atLeastFiftyFailoversInARowOverAllConfigurations() {
        assertThat(TOTAL_RESTARTS.get()).as("restarts over aligned, unaligned and concurrent checkpoints").isGreaterThanOrEqualTo(50);
    }

    private static void pause(int ms) {
        if (ms == 0) {
            return;
        }
        try {
            Thread.sleep(ms); // an injected delay at a protocol point, not a wait for a condition
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
