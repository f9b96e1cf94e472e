package io.weir.core.engine;

import io.weir.core.job.JobGraph;

/**
 * Runs jobs on this node: deploys their tasks, coordinates their checkpoints and restarts them
 * from the latest completed checkpoint on failure. In OSGi the runtime bundle registers it as a
 * service once a state backend, a checkpoint storage and barrier handlers are available.
 * Thread-safe.
 */
public interface Engine {
    /**
     * Starts a job; restores it from the newest complete checkpoint in its checkpoint directory if
     * there is one.
     *
     * @param job a validated job (see {@code JobSpecParser})
     * @param listener told about checkpoints, restarts and status changes
     * @return the running job
     * @throws IllegalArgumentException if a plugin or service the job needs is not installed, or a
     *         job of the same name is running
     */
    JobHandle submit(JobGraph job, JobListener listener);
}
