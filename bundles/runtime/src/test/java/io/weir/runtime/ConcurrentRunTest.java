package io.weir.runtime;

import io.weir.core.config.Configuration;
import io.weir.core.engine.JobHandle;
import io.weir.core.engine.JobListener;
import io.weir.core.engine.JobResult;
import io.weir.core.engine.JobStatus;
import io.weir.core.job.JobGraph;
import io.weir.core.job.JobSpecParser;
import io.weir.runtime.engine.LocalEngine;
import jakarta.json.spi.JsonProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Two runs of one job (same name, same checkpoint directory) from two engines, as from two
 * {@code bin/weir run} processes: the second is refused before it reads or deletes anything, the first
 * finishes exactly-once, and once it has ended the job can run again.
 */
class ConcurrentRunTest {
    @TempDir
    Path tmp;

    /** Holds the job master thread in its first status change, so the run provably lasts until released. */
    static final class GatedListener implements JobListener {
        final CountDownLatch entered = new CountDownLatch(1);
        final CountDownLatch release = new CountDownLatch(1);

        @Override
        public void onCompleted(io.weir.core.coordination.CompletedCheckpointStats stats) {
        }

        @Override
        public void onStatusChange(String jobName, JobStatus from, JobStatus to) {
            if (entered.getCount() > 0) {
                entered.countDown();
                try {
                    release.await(60, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        }
    }

    @Test
    void secondRunOfARunningJobIsRefusedAndTheFirstFinishesExactlyOnce() throws Exception {
        Path out = tmp.resolve("out");
        String json = FlightData.job(tmp.resolve("checkpoints"), 1, 2_000, 0, out);
        try (LocalEngine first = LocalEngine.fromServiceLoader(getClass().getClassLoader(), Configuration.empty());
             LocalEngine second = LocalEngine.fromServiceLoader(getClass().getClassLoader(), Configuration.empty())) {
            JobGraph job = new JobSpecParser(first.services().plugins(), JsonProvider.provider()).parse(json, tmp, Map.of());
            GatedListener gate = new GatedListener();
            JobHandle running = first.submit(job, gate);
            assertThat(gate.entered.await(30, TimeUnit.SECONDS)).as("first run started").isTrue();

            assertThatThrownBy(() -> second.submit(job, new JobRun()))
                    .hasMessageContaining("job flight-delays is already running")
                    .hasMessageContaining("pid " + ProcessHandle.current().pid());

            gate.release.countDown();
            JobResult result = running.result().get(120, TimeUnit.SECONDS);
            assertThat(result.status()).as("first run, unaffected: %s", result.failure()).isEqualTo(JobStatus.FINISHED);
            FlightData.assertExactlyOnce(out, FlightData.groundTruth(2_000));

            // released with the end of the run: a new run of the job may start (into other output, so that
            // it is not refused for the committed output of the first)
            JobGraph rerun = new JobSpecParser(second.services().plugins(), JsonProvider.provider())
                    .parse(FlightData.job(tmp.resolve("checkpoints"), 1, 2_000, 0, tmp.resolve("out2")), tmp, Map.of());
            JobResult again = second.submit(rerun, new JobRun()).result().get(120, TimeUnit.SECONDS);
            assertThat(again.status()).as("run after the first ended: %s", again.failure()).isEqualTo(JobStatus.FINISHED);
        }
        assertThat(Files.exists(tmp.resolve("checkpoints").resolve("flight-delays").resolve("_run.lock"))).isTrue();
    }
}
