package io.weir.ha.hazelcast.jobs;

import io.weir.core.engine.JobHandle;
import io.weir.core.engine.JobListener;

/** Starts this node's run of a cluster job on the local engine. */
@FunctionalInterface
public interface JobStarter {
    /**
     * @param job the job, owned by this node
     * @param listener follows the run
     * @return the run
     * @throws io.weir.core.job.InvalidJobException if the spec does not parse here (e.g. a plugin is missing)
     * @throws IllegalArgumentException if the engine refuses it (e.g. an earlier run of the name has not ended yet)
     */
    JobHandle start(ClusterJob job, JobListener listener) throws Exception;
}
