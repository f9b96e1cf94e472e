package io.weir.ha.hazelcast.checkpoint;

/**
 * The fencing epoch under which this node runs a job: the epoch of the lease it holds on the job
 * (docs/ha.md "Fencing"). Every write of the job's id counter and completed store carries it.
 */
@FunctionalInterface
public interface JobEpochs {
    /**
     * @param jobName the job
     * @return the epoch of this node's lease on the job, ≥ 1
     * @throws IllegalStateException naming the job if this node holds no lease on it (it must not run it)
     */
    long epochOf(String jobName);

    /**
     * @param jobName the job
     * @param epoch an epoch the caller runs under
     * @return whether this node still holds its lease on the job under exactly {@code epoch} (false once it stopped that
     *         run, e.g. because the lease could not be renewed in time)
     */
    default boolean holds(String jobName, long epoch) {
        try {
            return epochOf(jobName) == epoch;
        } catch (IllegalStateException e) {
            return false;
        }
    }
}
