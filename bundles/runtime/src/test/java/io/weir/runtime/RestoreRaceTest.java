package io.weir.runtime;

import io.weir.core.checkpoint.CheckpointMetadata;
import io.weir.core.config.Configuration;
import io.weir.core.engine.JobStatus;
import io.weir.runtime.engine.LocalEngine;
import io.weir.runtime.faults.InterceptedCoordinators;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The restore point is chosen once nothing can complete any more (issue 6, "restore must not race
 * the coordinator"). The interleaving is forced at named points: the job fails over while
 * {@code _metadata} of checkpoint N is being written, and that write is held until the job master
 * has asked for the restore point. Choosing N−1 there (as the job master once did, on its own
 * thread) let N complete afterwards; the new attempt's 2PC sink deleted N's pre-committed file as a
 * leftover, and a second failure, restoring from N, found that transaction's data gone.
 */
class RestoreRaceTest {
    @TempDir
    Path tmp;
    private final LocalEngine base = LocalEngine.fromServiceLoader(getClass().getClassLoader(), Configuration.empty());

    @AfterEach
    void stop() {
        base.close();
    }

    @Test
    void checkpointCompletingWhileTheRestoreIsRequestedIsTheOneRestoredAndOutputStaysExactlyOnce() throws Exception {
        AtomicLong heldCheckpoint = new AtomicLong();
        CountDownLatch restoreRequested = new CountDownLatch(1);
        AtomicInteger restores = new AtomicInteger();
        AtomicBoolean secondFailureFired = new AtomicBoolean();
        InterceptedCoordinators.Hooks hooks = new InterceptedCoordinators.Hooks() {
            @Override
            public void beforeMetadataWritten(CheckpointMetadata metadata, Consumer<String> failJob) {
                long checkpointId = metadata.checkpointId();
                if (checkpointId >= 2 && heldCheckpoint.compareAndSet(0, checkpointId)) {
                    failJob.accept("while _metadata of checkpoint " + checkpointId + " is being written");
                    await(restoreRequested);
                }
            }

            @Override
            public void afterRestoreRequested(Consumer<String> failJob) {
                if (restores.incrementAndGet() == 2) {
                    restoreRequested.countDown(); // the first failover's request (the first one is the job's start)
                }
            }

            @Override
            public void onInitCheckpoint(long checkpointId, Consumer<String> failJob) {
                // the new attempt's first checkpoint: fail again before it can complete, so the next
                // restore reads the store that checkpoint N went into
                if (restores.get() == 2 && secondFailureFired.compareAndSet(false, true)) {
                    failJob.accept("at the first checkpoint after the restore");
                }
            }
        };
        int limit = 3000;
        Path out = tmp.resolve("out");
        JobRun run;
        { // not closed: it shares the base engine's threads, which @AfterEach stops
            LocalEngine engine = InterceptedCoordinators.engine(base, hooks);
            run = JobRun.run(engine, FlightData.job(tmp.resolve("checkpoints"), 1, limit, 1, out), tmp, Map.of(
                    "taskmanager.memory.segment-size", "2048",
                    "execution.checkpointing.interval", "5 ms",
                    "restart-strategy.fixed-delay.delay", "0 ms"));
        }

        assertThat(heldCheckpoint.get()).as("the _metadata write was held").isPositive();
        assertThat(secondFailureFired).isTrue();
        assertThat(run.restoredFrom).as("both restores take the checkpoint whose _metadata was being written")
                .containsExactly(heldCheckpoint.get(), heldCheckpoint.get());
        assertThat(run.result.status()).isEqualTo(JobStatus.FINISHED);
        assertThat(run.result.restarts()).isEqualTo(2);
        FlightData.assertExactlyOnce(out, FlightData.groundTruth(limit));
    }

    private static void await(CountDownLatch latch) {
        try {
            assertThat(latch.await(30, TimeUnit.SECONDS)).as("the job master asked for the restore point").isTrue();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
