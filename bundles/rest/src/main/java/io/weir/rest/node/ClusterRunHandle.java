package io.weir.rest.node;

import io.weir.core.checkpoint.CompletedCheckpoint;
import io.weir.core.engine.JobHandle;
import io.weir.core.engine.JobResult;
import io.weir.core.engine.JobStatus;

import java.nio.file.Path;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * What the cluster holds of a cluster job this node owns: one handle for the whole time this node runs the job under
 * one lease, across the runs {@link PluginUpgrades} replaces it with (a move to another plugin version, a rollback, a
 * park while its plugin is missing and the resume). Every call goes to the job's current run in the node's job table;
 * {@link #result()} completes only when the job really ends here (finished, cancelled, failed, or suspended by the
 * engine or by the cluster), never when a move retires one run for the next, so the cluster neither records the end of
 * a replaced run in its job store nor starts a run of its own beside the moved one.
 *
 * <p>{@link #suspend()} and {@link #cancel()} come from the cluster (its lease is gone, or the job was cancelled): they
 * release the job from this node first ({@link NodeJobs#releaseClusterRun}), so a plugin change can no longer resume
 * or move it here. Thread-safe: the job table is concurrent and the result future is completed once.
 */
final class ClusterRunHandle implements JobHandle {
    private final NodeJobs jobs;
    private final String id;
    private final String name;
    private final CompletableFuture<JobResult> result;

    /**
     * @param jobs the node's jobs
     * @param id the cluster job's id
     * @param name the job's name
     * @param result completed by {@link NodeJobs} when the job ends on this node
     */
    ClusterRunHandle(NodeJobs jobs, String id, String name, CompletableFuture<JobResult> result) {
        this.jobs = jobs;
        this.id = id;
        this.name = name;
        this.result = result;
    }

    private JobHandle current() {
        NodeJob job = jobs.current(id);
        return job == null ? null : job.handle();
    }

    @Override
    public String jobName() {
        return name;
    }

    /** @return the current run's status (SUSPENDED while parked for a missing plugin), or the end's once it ended */
    @Override
    public JobStatus status() {
        if (result.isDone()) {
            return result.join().status();
        }
        JobHandle h = current();
        return h == null ? JobStatus.CREATED : h.status();
    }

    @Override
    public CompletableFuture<JobResult> result() {
        return result;
    }

    @Override
    public java.util.Map<String, Long> recordsWritten() {
        JobHandle h = current();
        return h == null ? java.util.Map.of() : h.recordsWritten();
    }

    @Override
    public long firstRecordTimeMillis() {
        JobHandle h = current();
        return h == null ? -1 : h.firstRecordTimeMillis();
    }

    @Override
    public CompletableFuture<CompletedCheckpoint> triggerCheckpoint() {
        JobHandle h = current();
        return h == null ? CompletableFuture.failedFuture(new IllegalStateException("job " + name + " (" + id + ") has no run on this node"))
                : h.triggerCheckpoint();
    }

    @Override
    public void cancel() {
        jobs.releaseClusterRun(id, JobStatus.CANCELED).cancel();
    }

    @Override
    public void suspend() {
        jobs.releaseClusterRun(id, JobStatus.SUSPENDED).suspend();
    }

    @Override
    public CompletableFuture<Path> triggerSavepoint(Optional<Path> directory) {
        JobHandle h = current();
        return h == null ? JobHandle.super.triggerSavepoint(directory) : h.triggerSavepoint(directory);
    }

    @Override
    public CompletableFuture<Path> stopWithSavepoint(Optional<Path> directory, boolean drain) {
        JobHandle h = current();
        return h == null ? JobHandle.super.stopWithSavepoint(directory, drain) : h.stopWithSavepoint(directory, drain);
    }
}
