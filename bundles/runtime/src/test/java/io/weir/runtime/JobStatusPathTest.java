package io.weir.runtime;

import io.weir.core.config.Configuration;
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
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/** The status changes a real job reports follow the JobStatus diagram, checked by the job master on every change. */
class JobStatusPathTest {
    @TempDir
    Path tmp;

    /** Records "FROM->TO" per status change. */
    private static final class StatusPath implements JobListener {
        final List<String> changes = new CopyOnWriteArrayList<>();

        @Override
        public void onStatusChange(String jobName, JobStatus from, JobStatus to) {
            changes.add(from + "->" + to);
        }

        @Override
        public void onCompleted(io.weir.core.coordination.CompletedCheckpointStats stats) {
        }
    }

    private JobResult run(String json, Map<String, String> overrides, StatusPath path, Runnable beforeSubmit) throws Exception {
        try (LocalEngine engine = LocalEngine.fromServiceLoader(getClass().getClassLoader(), Configuration.empty())) {
            JobGraph job = new JobSpecParser(engine.services().plugins(), JsonProvider.provider()).parse(json, tmp, overrides);
            beforeSubmit.run();
            return engine.submit(job, path).result().get(60, TimeUnit.SECONDS);
        }
    }

    @Test
    void boundedJobGoesCreatedRunningFinished() throws Exception {
        StatusPath path = new StatusPath();

        JobResult result = run(FlightData.job(tmp.resolve("checkpoints"), 1, 200, 0, tmp.resolve("out")), Map.of(), path, () -> { });

        assertThat(result.status()).isEqualTo(JobStatus.FINISHED);
        assertThat(path.changes).containsExactly("CREATED->RUNNING", "RUNNING->FINISHED");
    }

    @Test
    void jobFailingOnEveryStartGoesCreatedRestartingFailed() throws Exception {
        Path data = Files.copy(FlightData.DATA, tmp.resolve("flights.json"));
        String json = FlightData.job(tmp.resolve("checkpoints"), 1, 0, 0, tmp.resolve("out")).replace(FlightData.DATA.toString(), data.toString());
        StatusPath path = new StatusPath();

        JobResult result = run(json, Map.of("restart-strategy.fixed-delay.attempts", "2", "restart-strategy.fixed-delay.delay", "1 ms"),
                path, () -> {
                    try {
                        Files.delete(data);
                    } catch (java.io.IOException e) {
                        throw new java.io.UncheckedIOException(e);
                    }
                });

        assertThat(result.status()).isEqualTo(JobStatus.FAILED);
        assertThat(path.changes).containsExactly("CREATED->RESTARTING", "RESTARTING->FAILED");
    }
}
