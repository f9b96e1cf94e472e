package io.weir.cli.command;

import io.weir.core.checkpoint.CompletedCheckpoint;
import io.weir.core.engine.Engine;
import io.weir.core.engine.JobHandle;
import io.weir.core.engine.JobListener;
import io.weir.core.engine.JobResult;
import io.weir.core.engine.JobStatus;
import io.weir.core.job.JobGraph;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;

/** An engine whose job ends when the test completes {@link #result}, or as CANCELED on cancel(). */
final class TestEngine implements Engine {
    final CompletableFuture<JobResult> result = new CompletableFuture<>();
    final AtomicBoolean cancelled = new AtomicBoolean();
    volatile JobGraph submitted;
    volatile JobListener listener;

    @Override
    public JobHandle submit(JobGraph job, JobListener jobListener) {
        submitted = job;
        listener = jobListener;
        return new JobHandle() {
            @Override
            public String jobName() {
                return job.name();
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
                return CompletableFuture.failedFuture(new UnsupportedOperationException());
            }

            @Override
            public void cancel() {
                cancelled.set(true);
                result.complete(new JobResult(job.name(), JobStatus.CANCELED, null, 0, null));
            }

            @Override
            public void suspend() {
                result.complete(new JobResult(job.name(), JobStatus.SUSPENDED, null, 0, null));
            }
        };
    }
}
