package io.weir.core.cluster;

import io.weir.core.engine.JobHandle;
import io.weir.core.engine.JobListener;

import java.nio.file.Path;
import java.util.Map;

/**
 * Starts this node's run of a cluster job in the node's job table (registered by the REST bundle), so the node's REST
 * API shows it under the cluster job's id and its savepoint and stop operations work on it. A run started here is
 * never written to the node's job registry: the cluster, not a node restart, decides where it runs next.
 * Thread-safe.
 */
public interface ClusterRuns {
    /**
     * @param id the cluster job's id (32 hex); the run is listed under it
     * @param spec the job file's JSON
     * @param baseDirectory what the spec's relative paths resolve against (absolute)
     * @param overrides {@code --set} options
     * @param submitTime when the job was submitted to the cluster, ms since the epoch
     * @param listener told about the run besides the node's job table
     * @return the run's handle (suspend, cancel, result)
     * @throws io.weir.core.job.InvalidJobException naming the field if the spec does not parse here (e.g. a plugin is missing)
     * @throws IllegalArgumentException with "already running" in its message if this node still runs a job of that name
     */
    JobHandle start(String id, String spec, Path baseDirectory, Map<String, String> overrides, long submitTime,
            JobListener listener) throws Exception;
}
