package io.weir.runtime;

import io.weir.core.config.Configuration;
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
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/** A task that fails on every start (here: its input file vanished after the job was validated). */
class RestartExhaustionTest {
    @TempDir
    Path tmp;

    @Test
    void failingOnEveryStartEndsTheJobFailedAfterTheConfiguredRestarts() throws Exception {
        Path data = Files.copy(FlightData.DATA, tmp.resolve("flights.json"));
        String json = FlightData.job(tmp.resolve("checkpoints"), 1, 0, 0, tmp.resolve("out")).replace(FlightData.DATA.toString(), data.toString());
        try (LocalEngine engine = LocalEngine.fromServiceLoader(getClass().getClassLoader(), Configuration.empty())) {
            JobGraph job = new JobSpecParser(engine.services().plugins(), JsonProvider.provider()).parse(json, tmp,
                    Map.of("restart-strategy.fixed-delay.attempts", "2", "restart-strategy.fixed-delay.delay", "1 ms"));
            Files.delete(data);
            JobRun listener = new JobRun();

            JobResult result = engine.submit(job, listener).result().get(30, TimeUnit.SECONDS);

            assertThat(result.status()).isEqualTo(JobStatus.FAILED);
            assertThat(result.restarts()).isEqualTo(2);
            assertThat(result.failure()).hasMessageContaining("failed after 2 restart(s)").hasMessageContaining("flights.json");
        }
    }
}
