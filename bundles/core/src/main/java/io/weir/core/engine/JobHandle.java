package io.weir.core.engine;

import io.weir.core.checkpoint.CompletedCheckpoint;

import java.util.concurrent.CompletableFuture;

/** A submitted job. Thread-safe. */
public interface JobHandle {
    /** @return the job name */
    String jobName();

    /** @return the current status */
    JobStatus status();

    /** @return completes when the job reaches a terminal status (never exceptionally) */
    CompletableFuture<JobResult> result();

    /** @return a manual checkpoint through the request decider (PROTOCOL.md §2) */
    CompletableFuture<CompletedCheckpoint> triggerCheckpoint();

    /** Cancels the job: tasks stop, pending checkpoints are aborted; completed checkpoints stay. */
    void cancel();
}
