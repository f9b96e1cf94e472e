package io.weir.core.ha;

/**
 * Thrown by {@link CompletedCheckpointStore#addCheckpointAndSubsumeOldest} when the checkpoint must not complete in this
 * run, yet the store may hold it: its write may have been applied (an answer lost, or applied while this process was
 * paused) and another owner of the job may already restore from it. The coordinator then aborts the checkpoint (its
 * tasks commit nothing for it) but keeps its files, which are no longer this run's to delete (Flink's
 * {@code PossibleInconsistentStateException} plays the same part). Whoever owns the job's store later subsumes them.
 */
public class CheckpointPossiblyStoredException extends IllegalStateException {
    private static final long serialVersionUID = 1L;

    /**
     * @param message names the job and checkpoint and why the outcome is open
     * @param cause the failure that left it open, or null
     */
    public CheckpointPossiblyStoredException(String message, Throwable cause) {
        super(message, cause);
    }
}
