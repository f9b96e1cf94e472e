package io.weir.rest.node;

import io.weir.core.checkpoint.CompletedCheckpoint;
import io.weir.core.engine.JobHandle;
import io.weir.core.engine.JobResult;
import io.weir.core.engine.JobStatus;

import java.util.concurrent.CompletableFuture;

/**
 * The handle of a job that does not run in this node process: one ended before the node last
 * stopped (history from the registry), or one the node could not resume. Its result is already
 * complete; it cannot be checkpointed, and cancelling it does nothing.
 */
final class EndedJob implements JobHandle {
    private final String name;
    private final CompletableFuture<JobResult> result;

    /**
     * @param name the job's name
     * @param status its terminal status
     * @param failure why it failed, or null
     */
    EndedJob(String name, JobStatus status, String failure) {
        if (!status.isTerminal()) {
            throw new IllegalArgumentException("an ended job needs a terminal status, not " + status);
        }
        this.name = name;
        this.result = CompletableFuture.completedFuture(
                new JobResult(name, status, failure == null ? null : new RecordedFailure(failure), 0, null));
    }

    /** A failure read back from the registry: only its message survives a node restart. */
    static final class RecordedFailure extends RuntimeException {
        private static final long serialVersionUID = 1L;

        RecordedFailure(String message) {
            super(message, null, false, false);
        }

        @Override
        public String toString() {
            return getMessage();
        }
    }

    @Override
    public String jobName() {
        return name;
    }

    @Override
    public JobStatus status() {
        return result.join().status();
    }

    @Override
    public CompletableFuture<JobResult> result() {
        return result;
    }

    @Override
    public CompletableFuture<CompletedCheckpoint> triggerCheckpoint() {
        return CompletableFuture.failedFuture(new IllegalStateException("job " + name + " has ended: " + status()));
    }

    @Override
    public void cancel() {
        // already ended
    }

    @Override
    public void suspend() {
        // already ended
    }
}
