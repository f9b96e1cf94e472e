package io.weir.runtime;

import io.weir.core.config.Configuration;
import io.weir.core.engine.JobListener;
import io.weir.core.engine.JobResult;
import io.weir.core.engine.JobStatus;
import io.weir.core.job.JobGraph;
import io.weir.core.job.JobSpecParser;
import io.weir.runtime.engine.LocalEngine;
import jakarta.json.spi.JsonProvider;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * An exception thrown inside a job-master task (here a job listener that throws when told of a
 * restart) fails the job with that error; it used to vanish in the executor, leaving the job
 * RESTARTING forever with its result never completed.
 */
class JobMasterInternalErrorTest {
    @TempDir
    Path tmp;
    private final LocalEngine engine = LocalEngine.fromServiceLoader(getClass().getClassLoader(), Configuration.empty());

    @AfterEach
    void stop() {
        engine.close();
    }

    @Test
    void listenerThrowingDuringAFailoverFailsTheJobInsteadOfHangingIt() throws Exception {
        String json = FlightData.job(tmp.resolve("checkpoints"), 1, 2000, 0, tmp.resolve("out"));
        JobGraph job = new JobSpecParser(engine.services().plugins(), JsonProvider.provider()).parse(json, tmp, Map.of(
                "debug.inject-failure.operator", "per-origin", "debug.inject-failure.after-records", "100"));
        JobListener throwing = new JobListener() {
            @Override
            public void onRestart(String jobName, int attempt, Throwable cause) {
                throw new IllegalStateException("listener broke");
            }

            @Override
            public void onCompleted(io.weir.core.coordination.CompletedCheckpointStats stats) {
            }
        };

        JobResult result = engine.submit(job, throwing).result().get(60, TimeUnit.SECONDS);

        assertThat(result.status()).isEqualTo(JobStatus.FAILED);
        assertThat(result.failure()).hasMessageContaining("internal error in the job master").hasMessageContaining("listener broke");
    }
}
