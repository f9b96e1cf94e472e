package io.weir.ha.hazelcast;

import com.hazelcast.cluster.Member;
import com.hazelcast.core.HazelcastInstance;
import io.weir.core.cluster.ClusterJobEntry;
import io.weir.core.cluster.ClusterJobs;
import io.weir.core.job.InvalidJobException;
import io.weir.ha.hazelcast.forward.ForwardedRequest;
import io.weir.ha.hazelcast.forward.LocalEndpoint;
import io.weir.ha.hazelcast.jobs.ClusterJob;
import org.osgi.framework.BundleContext;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * {@link ClusterJobs} on the cluster's job store, for the node's REST API ({@code /jobs} on a cluster node,
 * docs/ha.md "REST and CLI"): requests about a job another member runs are forwarded to it over the cluster's own
 * connections ({@link ForwardedRequest}). Thread-safe: stateless over thread-safe collaborators.
 */
@Component(service = ClusterJobs.class, immediate = true)
public final class ClusterJobsService implements ClusterJobs {
    /** The executor forwarded requests run on. */
    static final String EXECUTOR = "weir.forward";
    /** Longest wait for a forwarded request's answer, seconds. */
    static final int FORWARD_TIMEOUT_SECONDS = 30;
    /** The node's data directory property (as the REST bundle reads it), for the admin token file. */
    static final String DATA_DIR = "weir.node.data-dir";

    private static final Logger LOG = LoggerFactory.getLogger(ClusterJobsService.class);

    private final ClusterJobsComponent jobs;

    /**
     * @param context the bundle's context, for the node's data directory
     * @param jobs the cluster's jobs on this node
     */
    @Activate
    public ClusterJobsService(BundleContext context, @Reference ClusterJobsComponent jobs) {
        this.jobs = jobs;
        String dir = context.getProperty(DATA_DIR);
        Path dataDir = dir == null || dir.isBlank() ? Path.of(System.getProperty("user.home"), ".weir", "node") : Path.of(dir);
        LocalEndpoint endpoint = new LocalEndpoint(jobs.cluster().member().settings().nodeUrl(),
                dataDir.resolve("security").resolve("admin.token"));
        jobs.cluster().member().started().thenAccept(hz -> hz.getUserContext().put(LocalEndpoint.KEY, endpoint));
    }

    @Override
    public List<ClusterJobEntry> jobs() {
        String self = self();
        return jobs.store().all().stream().map(j -> entry(j, self)).toList();
    }

    @Override
    public Optional<ClusterJobEntry> find(String idOrName) {
        ClusterJob byName = jobs.store().get(idOrName);
        if (byName != null) {
            return Optional.of(entry(byName, self()));
        }
        return jobs().stream().filter(j -> j.id().equals(idOrName)).findFirst();
    }

    @Override
    public ClusterJobEntry submit(String spec, Path baseDirectory, Map<String, String> overrides) throws InvalidJobException {
        try {
            return entry(jobs.submit(spec, baseDirectory, overrides), self());
        } catch (InvalidJobException | RuntimeException e) {
            throw e;
        } catch (Exception e) {
            throw new IllegalStateException("cannot submit the job to the cluster: " + e.getMessage(), e);
        }
    }

    @Override
    public ClusterJobEntry cancel(String idOrName) {
        ClusterJobEntry job = find(idOrName).orElseThrow(() -> new IllegalArgumentException("the cluster has no job with id or name '"
                + idOrName + "'; GET /jobs lists them"));
        LOG.info("Cancelling cluster job {} ({}) on request", job.name(), job.id());
        return entry(jobs.store().cancel(job.name()), self());
    }

    @Override
    public String selfUrl() {
        return jobs.cluster().member().settings().nodeUrl();
    }

    @Override
    public Answer forward(String memberId, String method, String pathAndQuery, String body) {
        HazelcastInstance hz = jobs.cluster().member().get();
        Member target = hz.getCluster().getMembers().stream().filter(m -> m.getUuid().toString().equals(memberId)).findFirst()
                .orElseThrow(() -> new IllegalStateException("member " + memberId + " is not in the cluster (any more); try again "
                        + "once its jobs have moved"));
        try {
            return hz.getExecutorService(EXECUTOR).submitToMember(new ForwardedRequest(method, pathAndQuery, body), target)
                    .get(FORWARD_TIMEOUT_SECONDS, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while forwarding " + method + " " + pathAndQuery + " to " + target, e);
        } catch (ExecutionException | TimeoutException e) {
            throw new IllegalStateException("member " + target.getAddress() + " did not answer " + method + " " + pathAndQuery
                    + " within " + FORWARD_TIMEOUT_SECONDS + " s: " + e, e);
        }
    }

    private String self() {
        return jobs.cluster().member().get().getCluster().getLocalMember().getUuid().toString();
    }

    private static ClusterJobEntry entry(ClusterJob j, String self) {
        return new ClusterJobEntry(j.id(), j.name(), j.status().name(), j.owner(), j.ownerUrl(), j.epoch(), j.submitTime(), j.message(),
                self.equals(j.owner()));
    }
}
