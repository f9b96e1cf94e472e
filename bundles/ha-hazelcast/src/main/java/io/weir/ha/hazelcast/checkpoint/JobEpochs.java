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
}
