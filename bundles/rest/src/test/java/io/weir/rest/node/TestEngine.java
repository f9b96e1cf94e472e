package io.weir.rest.node;

import io.weir.core.checkpoint.CompletedCheckpoint;
import io.weir.core.engine.Engine;
import io.weir.core.engine.JobHandle;
import io.weir.core.engine.JobListener;
import io.weir.core.engine.JobResult;
import io.weir.core.engine.JobStatus;
import io.weir.core.job.JobGraph;

import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * An engine whose jobs stay RUNNING until the test ends them ({@link #finish}, {@link #fail}) or
 * they are cancelled; refuses a second running job of one name as LocalEngine does.
 */
public final class TestEngine implements Engine {
    /** Every submitted job by name, the newest one per name. */
    public final Map<String, TestJob> jobs = new ConcurrentHashMap<>();
    /** Names in submit order. */
    public final List<String> submitted = new CopyOnWriteArrayList<>();
    /** The configuration each job was last submitted with, by name. */
    public final Map<String, io.weir.core.config.Configuration> configs = new ConcurrentHashMap<>();
    /** Every graph submitted, in submit order. */
    public final List<JobGraph> graphs = new CopyOnWriteArrayList<>();
    /**
     * When set, a stop-with-savepoint answers this savepoint path at once and the job FINISHES (as the engine does
     * once the savepoint completed); when null, the test completes {@link TestJob#stop} itself.
     */
    public volatile java.nio.file.Path stopsAt;

    /** One job of this engine. */
    public static final class TestJob implements JobHandle {
        final String name;
        /** Its listener (the node's {@link NodeJob}). */
        public final JobListener listener;
        final CompletableFuture<JobResult> result = new CompletableFuture<>();
        volatile boolean cancelled;
        /** What {@link #triggerSavepoint} answers; the test completes it. */
        public final CompletableFuture<java.nio.file.Path> savepoint = new CompletableFuture<>();
        /** What {@link #stopWithSavepoint} answers; the test completes it. */
        public final CompletableFuture<java.nio.file.Path> stop = new CompletableFuture<>();
        /** The directory and drain flag of the last savepoint or stop request. */
        public volatile java.nio.file.Path savepointDirectory;
        /** Whether the last stop asked to drain. */
        public volatile boolean drained;
        /** What {@link #recordsWritten} answers; the test sets it. */
        public volatile Map<String, Long> recordsWritten = Map.of();
        /** What {@link #firstRecordTimeMillis} answers; the test sets it. */
        public volatile long firstRecordTime = -1;
        private final java.nio.file.Path stopsAt;

        TestJob(String name, JobListener listener, java.nio.file.Path stopsAt) {
            this.name = name;
            this.listener = listener;
            this.stopsAt = stopsAt;
        }

        @Override
        public long firstRecordTimeMillis() {
            return firstRecordTime;
        }

        @Override
        public String jobName() {
            return name;
        }

        @Override
        public JobStatus status() {
            return result.isDone() ? result.join().status() : JobStatus.RUNNING;
        }

        @Override
        public CompletableFuture<JobResult> result() {
            return result;
        }

        @Override
        public CompletableFuture<CompletedCheckpoint> triggerCheckpoint() {
            return CompletableFuture.failedFuture(new UnsupportedOperationException("not in these tests"));
        }

        @Override
        public CompletableFuture<java.nio.file.Path> triggerSavepoint(java.util.Optional<java.nio.file.Path> directory) {
            savepointDirectory = directory.orElseThrow();
            return savepoint;
        }

        @Override
        public CompletableFuture<java.nio.file.Path> stopWithSavepoint(java.util.Optional<java.nio.file.Path> directory, boolean drain) {
            savepointDirectory = directory.orElseThrow();
            drained = drain;
            if (stopsAt != null) {
                stop.complete(stopsAt);
                result.complete(new JobResult(name, JobStatus.FINISHED, null, 0, null));
            }
            return stop;
        }

        @Override
        public Map<String, Long> recordsWritten() {
            return recordsWritten;
        }

        @Override
        public void cancel() {
            cancelled = true;
            result.complete(new JobResult(name, JobStatus.CANCELED, null, 0, null));
        }

        @Override
        public void suspend() {
            result.complete(new JobResult(name, JobStatus.SUSPENDED, null, 0, null));
        }

        /** @return whether cancel() was called */
        public boolean cancelled() {
            return cancelled;
        }
    }

    @Override
    public JobHandle submit(JobGraph job, JobListener listener) {
        TestJob previous = jobs.get(job.name());
        if (previous != null && !previous.result.isDone()) {
            throw new IllegalArgumentException("a job named '" + job.name() + "' is already running on this engine");
        }
        TestJob j = new TestJob(job.name(), listener, stopsAt);
        graphs.add(job);
        jobs.put(job.name(), j);
        submitted.add(job.name());
        configs.put(job.name(), job.config());
        return j;
    }

    /** Ends job {@code name} FINISHED. */
    public void finish(String name) {
        jobs.get(name).result.complete(new JobResult(name, JobStatus.FINISHED, null, 0, null));
    }

    /** Ends job {@code name} FAILED with {@code cause} after {@code restarts} restarts. */
    public void fail(String name, Throwable cause, int restarts) {
        jobs.get(name).result.complete(new JobResult(name, JobStatus.FAILED, cause, restarts, null));
    }
}
