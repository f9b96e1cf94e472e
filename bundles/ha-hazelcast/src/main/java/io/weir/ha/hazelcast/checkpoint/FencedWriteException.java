package io.weir.ha.hazelcast.checkpoint;

/**
 * A write to a job's checkpoint id counter or completed-checkpoint store carried a fencing epoch older than
 * the one stored: a newer owner has taken the job over, so this process (a former owner, e.g. one that was
 * paused past its lease) must not issue ids or complete checkpoints for it any more. The coordinator treats
 * it like any store failure: the checkpoint is aborted and its files discarded; nothing is committed.
 */
public final class FencedWriteException extends IllegalStateException {
    private static final long serialVersionUID = 1L;

    /**
     * @param jobName the job
     * @param what what was refused, e.g. "completing checkpoint 12"
     * @param epoch the writer's epoch
     * @param storedEpoch the newer epoch stored
     */
    public FencedWriteException(String jobName, String what, long epoch, long storedEpoch) {
        super("job " + jobName + ": " + what + " refused: this node's ownership epoch " + epoch
                + " is older than the stored epoch " + storedEpoch + " (another node owns the job now; this copy stops)");
    }

    /**
     * A write refused on this node: it stopped its run under {@code epoch} (its lease could not be renewed in time, or
     * the job moved), so the run must not complete anything any more, whatever the map would accept.
     *
     * @param jobName the job
     * @param what what was refused, e.g. "completing checkpoint 12"
     * @param epoch the stopped run's epoch
     */
    public FencedWriteException(String jobName, String what, long epoch) {
        super("job " + jobName + ": " + what + " refused: this node stopped its run under epoch " + epoch
                + " (its lease could not be renewed in time, or the job moved); the checkpoint does not complete");
    }
}
