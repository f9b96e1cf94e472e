package io.weir.runtime;

import io.weir.core.coordination.CompletedCheckpointStats;
import io.weir.core.engine.JobListener;
import io.weir.core.engine.JobResult;
import io.weir.core.engine.JobStatus;
import io.weir.core.job.JobGraph;
import io.weir.core.job.JobSpecParser;
import io.weir.runtime.engine.LocalEngine;
import jakarta.json.spi.JsonProvider;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

/** Runs a job file to its end on an engine and records what the job reported. */
final class JobRun implements JobListener {
    final List<CompletedCheckpointStats> completed = new CopyOnWriteArrayList<>();
    /** The checkpoint id of every restore, in order (first start included). */
    final List<Long> restoredFrom = new CopyOnWriteArrayList<>();
    /** Checkpoints completed before the first restart, or -1 if there was none. */
    volatile int completedBeforeRestart = -1;
    JobResult result;
    private final java.util.function.Consumer<JobStatus> onStatus;

    JobRun() {
        this(status -> { });
    }

    private JobRun(java.util.function.Consumer<JobStatus> onStatus) {
        this.onStatus = onStatus;
    }

    static JobRun run(LocalEngine engine, String json, Path baseDir, Map<String, String> overrides) throws Exception {
        return run(engine, json, baseDir, overrides, status -> { });
    }

    /** @param onStatus called with every status the job enters (job master thread) */
    static JobRun run(LocalEngine engine, String json, Path baseDir, Map<String, String> overrides,
            java.util.function.Consumer<JobStatus> onStatus) throws Exception {
        JobGraph job = new JobSpecParser(engine.services().plugins(), JsonProvider.provider()).parse(json, baseDir, overrides);
        JobRun run = new JobRun(onStatus);
        run.result = engine.submit(job, run).result().get(120, TimeUnit.SECONDS);
        if (run.result.failure() != null) {
            run.result.failure().printStackTrace();
        }
        return run;
    }

    /** @return the last checkpoint completed before the first restart */
    CompletedCheckpointStats lastBeforeRestart() {
        return completed.get(completedBeforeRestart - 1);
    }

    @Override
    public void onCompleted(CompletedCheckpointStats stats) {
        completed.add(stats);
    }

    @Override
    public void onStatusChange(String jobName, JobStatus from, JobStatus to) {
        onStatus.accept(to);
    }

    @Override
    public void onRestore(String jobName, long checkpointId, String pointer) {
        restoredFrom.add(checkpointId);
    }

    @Override
    public void onRestart(String jobName, int attempt, Throwable cause) {

        if (completedBeforeRestart < 0) {
            completedBeforeRestart = completed.size();
        }
    }
}
