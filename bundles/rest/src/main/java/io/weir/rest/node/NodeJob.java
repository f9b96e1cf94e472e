package io.weir.rest.node;

import io.weir.core.checkpoint.CheckpointFailureReason;
import io.weir.core.coordination.CompletedCheckpointStats;
import io.weir.core.engine.JobHandle;
import io.weir.core.engine.JobListener;
import io.weir.core.engine.JobResult;
import io.weir.core.engine.JobStatus;
import io.weir.core.job.JobGraph;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.function.LongSupplier;

/**
 * One job submitted to the node: its id, graph, times and checkpoint statistics, and the engine's
 * handle. It is also the job's {@link JobListener}, so the statistics come straight from the engine.
 *
 * <p>Thread-safe: the handle is set once by the submitting thread before the job is published
 * ({@link #attach}); the end fields are written once when the job's result completes; checkpoint
 * statistics live in {@link CheckpointHistory}.
 */
public final class NodeJob implements JobListener {
    private static final Logger LOG = LoggerFactory.getLogger(NodeJob.class);

    private final String id;
    private final JobGraph graph;
    private final long startTime;
    private final LongSupplier clock;
    private final CheckpointHistory checkpoints = new CheckpointHistory(CheckpointHistory.DEFAULT_CAPACITY);
    private final ExceptionHistory exceptions = new ExceptionHistory(ExceptionHistory.DEFAULT_CAPACITY);
    /** Written once by the submitting thread before the job is visible to others. */
    private volatile JobHandle handle;
    /** Written once when the result completes; -1 while the job runs. */
    private volatile long endTime = -1;
    /** Written once when the result completes. */
    private volatile JobResult result;
    /** What the registry keeps of the job (spec, base directory, overrides, submit time); set at construction. */
    private final JobRecord submitted;
    /** Called after every status change, on the thread that made it (the node persists the job). */
    private final Runnable onChange;
    /** The job's plugin moves, shared with the job's earlier and later runs on this node. */
    private final UpgradeHistory upgrades;
    /** Set once when the node stops this run to start another (an upgrade) or to park it; then it is never persisted. */
    private volatile boolean retired;
    /** Completes when this run completes its first checkpoint (the end of an upgraded run's probation). */
    private final java.util.concurrent.CompletableFuture<Void> firstCheckpoint = new java.util.concurrent.CompletableFuture<>();
    /** Completes with the cause of this run's first failure (a restart, or the job FAILED). */
    private final java.util.concurrent.CompletableFuture<Throwable> firstFailure = new java.util.concurrent.CompletableFuture<>();

    /**
     * @param id the job id, 32 lower-case hex digits
     * @param graph the validated job
     * @param clock milliseconds since the epoch
     */
    NodeJob(String id, JobGraph graph, LongSupplier clock) {
        this(graph, clock, new JobRecord(id, graph.name(), "{}", "/", java.util.Map.of(), JobStatus.CREATED,
                clock.getAsLong(), -1, null), () -> { });
    }

    /**
     * @param graph the validated job (for a job that cannot be parsed any more: a graph without operators)
     * @param clock milliseconds since the epoch
     * @param submitted what the registry keeps of the job; its id, name and submit time are this job's
     * @param onChange called after every status change and every completed checkpoint of the job
     */
    NodeJob(JobGraph graph, LongSupplier clock, JobRecord submitted, Runnable onChange) {
        this(graph, clock, submitted, onChange, new UpgradeHistory());
    }

    /**
     * @param graph the validated job (for a job that cannot be parsed any more: a graph without operators)
     * @param clock milliseconds since the epoch
     * @param submitted what the registry keeps of the job; its id, name and submit time are this job's
     * @param onChange called after every status change and every completed checkpoint of the job
     * @param upgrades the job's plugin moves so far (shared by its runs)
     */
    NodeJob(JobGraph graph, LongSupplier clock, JobRecord submitted, Runnable onChange, UpgradeHistory upgrades) {
        this.upgrades = upgrades;
        this.id = submitted.id();
        this.graph = graph;
        this.clock = clock;
        this.startTime = submitted.submitTime();
        this.submitted = submitted;
        this.onChange = onChange;
        checkpoints.seedLatest(submitted.latestCheckpoint() == null ? null : submitted.latestCheckpoint().toStats(false),
                submitted.latestSavepoint() == null ? null : submitted.latestSavepoint().toStats(true));
    }

    /** Attaches the engine's handle; {@code endedAt} is the end time to report if the handle has already ended (history), else -1. */
    void attach(JobHandle jobHandle, long endedAt) {
        this.handle = jobHandle;
        jobHandle.result().whenComplete((r, e) -> {
            endTime = endedAt >= 0 && jobHandle instanceof EndedJob ? endedAt : clock.getAsLong();
            if (r != null && r.status() == JobStatus.FAILED) {
                exceptions.add(r.failure(), endTime, false);
                firstFailure.complete(r.failure());
            } else if (e != null) {
                firstFailure.complete(e);
            }
            result = r;
            onChange.run();
        });
    }

    void attach(JobHandle jobHandle) {
        attach(jobHandle, -1);
    }

    /** @return the registry record of the job as it is now, or null while it has no handle yet */
    JobRecord record() {
        JobHandle h = handle;
        if (h == null) {
            return null;
        }
        JobResult r = result;
        JobStatus status = r != null ? r.status() : h.status();
        String failure = r == null || r.failure() == null ? null : String.valueOf(r.failure());
        CheckpointHistory.Snapshot s = checkpoints.snapshot();
        return submitted.withStatus(status, r == null ? -1 : endTime, failure)
                .withLatest(JobRecord.Latest.of(s.latest()), JobRecord.Latest.of(s.latestSavepoint()));
    }

    /**
     * @return rows each operator sent to other tasks in the current attempt ({@link JobHandle#recordsWritten()});
     *         empty while the job has no handle
     */
    public java.util.Map<String, Long> recordsWritten() {
        JobHandle h = handle;
        return h == null ? java.util.Map.of() : h.recordsWritten();
    }

    /** @return the job id (32 lower-case hex digits, like Flink's JobID) */
    public String id() {
        return id;
    }

    /** @return the job's name (unique among the node's running jobs) */
    public String name() {
        return graph.name();
    }

    /** @return the validated job graph */
    public JobGraph graph() {
        return graph;
    }

    /** @return when the node accepted the job, ms since the epoch */
    public long startTime() {
        return startTime;
    }

    /** @return when the job reached a terminal status, ms since the epoch, or -1 while it has not */
    public long endTime() {
        JobResult r = result;
        return r == null ? -1 : endTime;
    }

    /** @return how long it ran (until its end, or until now), ms */
    public long duration() {
        long end = endTime();
        return (end < 0 ? clock.getAsLong() : end) - startTime;
    }

    /** @return the current status; the terminal one once the result is there */
    public JobStatus status() {
        JobResult r = result;
        return r != null ? r.status() : handle.status();
    }

    /** @return how it ended, or null while it runs */
    public JobResult result() {
        return result;
    }

    /** @return the engine's handle */
    JobHandle handle() {
        return handle;
    }

    /** @return the checkpoint statistics */
    public CheckpointHistory checkpoints() {
        return checkpoints;
    }

    /** @return the failures seen: restart causes and the cause the job failed with */
    public ExceptionHistory exceptions() {
        return exceptions;
    }

    /** @return the job's plugin moves (shared by its runs on this node) */
    public UpgradeHistory upgrades() {
        return upgrades;
    }

    /**
     * @return per operator (job order), the plugin it runs: type, bundle, version and the job's range; empty for a job
     *         that does not run here (history)
     */
    public java.util.List<io.weir.core.job.JobVertex> boundVertices() {
        return graph.vertices().stream().filter(v -> v.plugin() != null).toList();
    }

    /** Marks this run as being replaced or parked by the node: its end is not the job's end and is not persisted. */
    void retire() {
        retired = true;
    }

    /** @return whether {@link #retire} was called */
    boolean retired() {
        return retired;
    }

    /** @return completes when this run completes its first checkpoint */
    java.util.concurrent.CompletableFuture<Void> firstCheckpoint() {
        return firstCheckpoint;
    }

    /** @return completes with the cause of this run's first failure: a restart or the job failing */
    java.util.concurrent.CompletableFuture<Throwable> firstFailure() {
        return firstFailure;
    }

    @Override
    public void onCompleted(CompletedCheckpointStats stats) {
        firstCheckpoint.complete(null);
        checkpoints.completed(stats);
        onChange.run(); // the registry keeps the latest checkpoint and savepoint
    }

    @Override
    public void onFailed(long checkpointId, CheckpointFailureReason reason, Throwable cause) {
        checkpoints.failed(checkpointId, clock.getAsLong(), reason, cause);
    }

    @Override
    public void onRestore(String jobName, long checkpointId, String pointer) {
        checkpoints.restored(checkpointId, clock.getAsLong(), pointer,
                graph.config().get(io.weir.core.config.CheckpointingOptions.SAVEPOINT_PATH));
    }

    @Override
    public void onStatusChange(String jobName, JobStatus from, JobStatus to) {
        LOG.info("Job {} ({}) changed status {} -> {}", jobName, id, from, to);
        onChange.run();
    }

    @Override
    public void onRestart(String jobName, int attempt, Throwable cause) {
        LOG.warn("Job {} ({}) restarting (attempt {}): {}", jobName, id, attempt, String.valueOf(cause));
        exceptions.add(cause, clock.getAsLong(), true);
        firstFailure.complete(cause);
    }

    @Override
    public void onWarning(String jobName, String message) {
        LOG.warn("Job {} ({}): {}", jobName, id, message);
    }
}
