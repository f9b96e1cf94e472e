package io.weir.ha.hazelcast;

import io.weir.core.cluster.ClusterRuns;
import io.weir.core.job.JobSpecParser;
import io.weir.core.plugin.PluginRegistry;
import io.weir.ha.hazelcast.jobs.ClusterJob;
import io.weir.ha.hazelcast.jobs.ClusterJobStatus;
import io.weir.ha.hazelcast.jobs.ClusterJobStore;
import io.weir.ha.hazelcast.jobs.JobOwnership;
import jakarta.json.spi.JsonProvider;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Reference;

import java.nio.file.Path;
import java.util.Map;

/**
 * The cluster's jobs on this node: runs {@link JobOwnership}, which starts the runs this node owns in the node's job
 * table under the cluster job's id ({@link ClusterRuns}), and submits jobs to the cluster's job store (for
 * {@link ClusterResource} and {@link ClusterJobsService}). Thread-safe.
 */
@Component(service = ClusterJobsComponent.class, immediate = true)
public final class ClusterJobsComponent {
    private final ClusterComponent cluster;
    private final JobSpecParser parser;
    private final JobOwnership ownership;

    /**
     * @param cluster this node's membership
     * @param runs starts the runs of the jobs this node owns in the node's job table (under the cluster job's id)
     * @param plugins the installed plugins, to parse job specs
     */
    @Activate
    public ClusterJobsComponent(@Reference ClusterComponent cluster, @Reference ClusterRuns runs, @Reference PluginRegistry plugins) {
        this.cluster = cluster;
        this.parser = new JobSpecParser(plugins, JsonProvider.provider());
        this.ownership = new JobOwnership(cluster.member(), cluster.leases(), cluster.recovery(),
                (job, listener) -> runs.start(job.id(), job.spec(), Path.of(job.baseDirectory()), job.overrides(), job.submitTime(),
                        listener),
                System::nanoTime);
        ownership.start();
    }

    @Deactivate
    void deactivate() {
        ownership.close();
    }

    /**
     * Checks the spec here and adds the job to the cluster's job store; the leader assigns it to a node.
     *
     * @param spec the job file's JSON
     * @param baseDirectory absolute; relative paths in the spec resolve against it on whichever node runs the job
     * @param overrides {@code --set} options
     * @return the stored job
     * @throws io.weir.core.job.InvalidJobException naming the field if the spec is invalid
     * @throws IllegalStateException if a job of that name is running in the cluster
     */
    public ClusterJob submit(String spec, Path baseDirectory, Map<String, String> overrides) throws Exception {
        String name = parser.parse(spec, baseDirectory, overrides).name();
        return store().submit(new ClusterJob(name, spec, baseDirectory.toString(), overrides, ClusterJobStatus.RUNNING, null, "",
                0, System.currentTimeMillis(), ""));
    }

    /** @return the cluster's job store */
    public ClusterJobStore store() {
        return new ClusterJobStore(cluster.member().get());
    }

    /** @return this node's membership */
    public ClusterComponent cluster() {
        return cluster;
    }

    /** @return the names of the jobs this node runs now */
    public java.util.List<String> localJobs() {
        return ownership.localJobs();
    }
}
