package io.weir.rest.node;

import io.weir.core.cluster.ClusterRuns;
import io.weir.core.engine.JobHandle;
import io.weir.core.engine.JobListener;
import io.weir.core.job.InvalidJobException;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;

import java.nio.file.Path;
import java.util.Map;

/**
 * {@link ClusterRuns} over the node's job table ({@link NodeJobs#startClusterRun}): a cluster job run by this node is
 * listed, inspected, savepointed and stopped through {@code /jobs/ID} like any other, under the cluster job's id.
 * Thread-safe: stateless over {@link NodeJobs}.
 */
@Component(service = ClusterRuns.class, immediate = true)
public final class ClusterRunsComponent implements ClusterRuns {
    private final NodeJobs jobs;

    /** @param node the node's jobs */
    @Activate
    public ClusterRunsComponent(@Reference NodeJobsComponent node) {
        this.jobs = node.jobs();
    }

    @Override
    public JobHandle start(String id, String spec, Path baseDirectory, Map<String, String> overrides, long submitTime,
            JobListener listener) throws Exception {
        try {
            jobs.startClusterRun(id, spec, baseDirectory, overrides, submitTime, listener);
            return jobs.clusterHandle(id);
        } catch (JobSubmissionException e) {
            throw new InvalidJobException(e.getMessage());
        } catch (JobConflictException e) {
            throw new IllegalArgumentException("job " + id + " is already running on this node: " + e.getMessage(), e);
        }
    }
}
