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

    /** Records "FROM->TO" per status change, completed checkpoints and restores. */
    private static final class StatusPath implements JobListener {
        final List<String> changes = new CopyOnWriteArrayList<>();
        final java.util.concurrent.atomic.AtomicInteger completed = new java.util.concurrent.atomic.AtomicInteger();
        final List<Long> restoredFrom = new CopyOnWriteArrayList<>();

        @Override
        public void onRestore(String jobName, long checkpointId, String pointer) {
            restoredFrom.add(checkpointId);
        }

        @Override
        public void onStatusChange(String jobName, JobStatus from, JobStatus to) {
            changes.add(from + "->" + to);
        }

        @Override
        public void onCompleted(io.weir.core.coordination.CompletedCheckpointStats stats) {
            completed.incrementAndGet();
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
        assertThat(path.changes).containsExactly("CREATED->RESTARTING", "RESTARTING->FAILING", "FAILING->FAILED");
    }

    /** A slow flight-delays job: a record per ms, so it runs until the test ends it. */
    private JobGraph slowJob(LocalEngine engine, Path out) throws Exception {
        String json = FlightData.job(tmp.resolve("checkpoints"), 1, 0, 1, out);
        return new JobSpecParser(engine.services().plugins(), JsonProvider.provider())
                .parse(json, tmp, Map.of("execution.checkpointing.interval", "100 ms"));
    }

    @Test
    void cancelledJobPassesThroughCancelling() throws Exception {
        StatusPath path = new StatusPath();
        try (LocalEngine engine = LocalEngine.fromServiceLoader(getClass().getClassLoader(), Configuration.empty())) {
            io.weir.core.engine.JobHandle handle = engine.submit(slowJob(engine, tmp.resolve("out")), path);
            org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(30)).until(() -> handle.status() == JobStatus.RUNNING);

            handle.cancel();

            assertThat(handle.result().get(30, TimeUnit.SECONDS).status()).isEqualTo(JobStatus.CANCELED);
        }
        assertThat(path.changes).containsExactly("CREATED->RUNNING", "RUNNING->CANCELLING", "CANCELLING->CANCELED");
    }

    /**
     * An engine that stops suspends its jobs instead of cancelling them: SUSPENDED, checkpoints kept,
     * and the next run of the job resumes from the latest one and commits every update exactly once.
     */
    @Test
    void closingTheEngineSuspendsItsJobsAndTheNextRunResumesThem() throws Exception {
        StatusPath first = new StatusPath();
        Path out = tmp.resolve("out");
        io.weir.core.engine.JobHandle handle;
        try (LocalEngine engine = LocalEngine.fromServiceLoader(getClass().getClassLoader(), Configuration.empty())) {
            handle = engine.submit(slowJob(engine, out), first);
            org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(30)).until(() -> first.completed.get() >= 2);
        }
        assertThat(handle.result().get(1, TimeUnit.SECONDS).status()).isEqualTo(JobStatus.SUSPENDED);
        assertThat(first.changes).containsExactly("CREATED->RUNNING", "RUNNING->SUSPENDED");

        StatusPath second = new StatusPath();
        JobResult result = run(FlightData.job(tmp.resolve("checkpoints"), 1, 0, 0, out), Map.of(), second, () -> { });

        assertThat(result.status()).isEqualTo(JobStatus.FINISHED);
        assertThat(second.restoredFrom).hasSize(1).allMatch(id -> id >= 2);
        FlightData.assertExactlyOnce(out, FlightData.groundTruth(Integer.MAX_VALUE));
    }
}
