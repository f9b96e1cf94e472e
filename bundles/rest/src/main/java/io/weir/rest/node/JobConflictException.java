package io.weir.rest.node;

/**
 * The request does not fit the job's or the node's current state (REST: 409): a job of that name is
 * already running, a finished job is cancelled, or a name matches several jobs.
 */
public final class JobConflictException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /** @param message names the job, its state and what to do */
    public JobConflictException(String message) {
        super(message);
    }
}
