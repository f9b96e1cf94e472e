package io.weir.ha.hazelcast;

import com.hazelcast.cluster.Member;
import com.hazelcast.core.HazelcastInstance;
import io.weir.core.job.InvalidJobException;
import io.weir.ha.hazelcast.jobs.ClusterJob;
import io.weir.ha.hazelcast.member.ClusterMember;
import jakarta.ws.rs.DELETE;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.jakartars.whiteboard.propertytypes.JakartarsExtensionSelect;
import org.osgi.service.jakartars.whiteboard.propertytypes.JakartarsResource;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The cluster over REST (docs/rest-api.md "Cluster"): {@code GET /cluster} (members, leader, jobs per member),
 * {@code GET /cluster/jobs} (every job of the cluster with its owner and epoch), {@code POST /cluster/jobs} (submit on
 * any node) and {@code DELETE /cluster/jobs/{name}} (cancel): the last two do what {@code POST /jobs} and
 * {@code PATCH /jobs/:id?mode=cancel} do on a cluster node (through the same job store calls), and stay for the
 * scripts and tests written against them. Mutating requests need the node's bearer token.
 * Thread-safe: stateless over thread-safe collaborators.
 */
@Component(service = ClusterResource.class, immediate = true)
@JakartarsResource
@JakartarsExtensionSelect("(osgi.jakartars.name=weir-bearer-auth)")
@Path("/cluster")
@Produces(MediaType.APPLICATION_JSON)
public final class ClusterResource {
    private final ClusterJobsComponent jobs;

    /** @param jobs the cluster's jobs */
    @Activate
    public ClusterResource(@Reference ClusterJobsComponent jobs) {
        this.jobs = jobs;
    }

    /**
     * One member.
     *
     * @param id Hazelcast member UUID
     * @param address host:port of the member
     * @param url the node's REST URL
     * @param leader whether it is the leader (oldest member)
     * @param self whether it is the node that answered
     * @param jobs names of the RUNNING jobs the job store assigns to it
     */
    public record MemberView(String id, String address, String url, boolean leader, boolean self, List<String> jobs) {
    }

    /**
     * The cluster.
     *
     * @param name cluster name
     * @param leader the leader's REST URL
     * @param quorum members needed to run and move jobs
     * @param configured members configured
     * @param members the members this node sees, oldest first
     * @param safe whether every partition of the Weir maps has all its backups in sync (no migration running): only
     *        then does the loss of any one member lose no entry; wait for it before stopping or killing another node
     */
    public record ClusterView(String name, String leader, int quorum, int configured, List<MemberView> members, boolean safe) {
    }

    /**
     * One job.
     *
     * @param id the job's id for its whole life in the cluster, the same on every member (the {@code jid} of
     *        {@code GET /jobs} on any cluster node)
     * @param name the job's name
     * @param status RUNNING, FINISHED, FAILED or CANCELED
     * @param owner the owner's REST URL ("" while unassigned)
     * @param ownerId the owner's member UUID, or null
     * @param epoch the fencing epoch
     * @param submitTime ms since the epoch
     * @param message why it ended, or ""
     */
    public record JobView(String id, String name, String status, String owner, String ownerId, long epoch, long submitTime, String message) {
    }

    /** @return {@code GET /cluster} */
    @GET
    public ClusterView cluster() {
        HazelcastInstance hz = jobs.cluster().member().get();
        Map<String, List<String>> byOwner = new LinkedHashMap<>();
        for (ClusterJob j : jobs.store().all()) {
            if (!j.status().isTerminal() && j.owner() != null) {
                byOwner.computeIfAbsent(j.owner(), k -> new ArrayList<>()).add(j.name());
            }
        }
        List<MemberView> members = new ArrayList<>();
        boolean first = true;
        String leader = "";
        for (Member m : hz.getCluster().getMembers()) {
            String id = m.getUuid().toString();
            String url = String.valueOf(m.getAttribute(ClusterMember.URL_ATTRIBUTE));
            if (first) {
                leader = url;
            }
            members.add(new MemberView(id, m.getAddress().getHost() + ":" + m.getAddress().getPort(), url, first, m.localMember(),
                    byOwner.getOrDefault(id, List.of())));
            first = false;
        }
        var settings = jobs.cluster().member().settings();
        return new ClusterView(settings.name(), leader, settings.quorum(), settings.members().size(), members,
                hz.getPartitionService().isClusterSafe());
    }

    /** @return {@code GET /cluster/jobs}: every job of the cluster, by name */
    @GET
    @Path("jobs")
    public List<JobView> clusterJobs() {
        return jobs.store().all().stream().map(ClusterResource::view).toList();
    }

    /**
     * {@code POST /cluster/jobs}: adds a job to the cluster; the leader assigns it to the least loaded node.
     *
     * @param spec the job file's JSON
     * @param baseDir absolute directory every node resolves the spec's relative paths against (required)
     * @param sets {@code key=value} options, as {@code weir run --set}
     * @return 202 with the job; 400 for an invalid spec or base-dir; 409 if a job of that name runs in the cluster
     */
    @POST
    @Path("jobs")
    public Response submit(String spec, @QueryParam("base-dir") String baseDir, @QueryParam("set") List<String> sets) {
        if (baseDir == null || baseDir.isBlank() || !java.nio.file.Path.of(baseDir).isAbsolute()) {
            return error(400, "base-dir must be an absolute directory that every node sees, got '" + baseDir + "'");
        }
        Map<String, String> overrides = new LinkedHashMap<>();
        for (String s : sets == null ? List.<String>of() : sets) {
            int eq = s.indexOf('=');
            if (eq <= 0) {
                return error(400, "set '" + s + "' is not key=value");
            }
            overrides.put(s.substring(0, eq).strip(), s.substring(eq + 1).strip());
        }
        try {
            return Response.accepted(view(jobs.submit(spec, java.nio.file.Path.of(baseDir).normalize(), overrides))).build();
        } catch (InvalidJobException e) {
            return error(400, e.getMessage());
        } catch (IllegalStateException e) {
            return error(409, e.getMessage());
        } catch (Exception e) {
            return error(500, e.toString());
        }
    }

    /**
     * {@code DELETE /cluster/jobs/{name}}: cancels a running job of the cluster (its owner's run is fenced off and
     * cancelled).
     *
     * @param name the job's name
     * @return 202 with the job; 404 if the cluster has no running job of that name
     */
    @DELETE
    @Path("jobs/{name}")
    public Response cancel(@PathParam("name") String name) {
        try {
            return Response.accepted(view(jobs.store().cancel(name))).build();
        } catch (IllegalArgumentException e) {
            return error(404, e.getMessage());
        }
    }

    private static JobView view(ClusterJob j) {
        return new JobView(j.id(), j.name(), j.status().name(), j.ownerUrl(), j.owner(), j.epoch(), j.submitTime(), j.message());
    }

    private static Response error(int status, String message) {
        return Response.status(status).type(MediaType.APPLICATION_JSON).entity(Map.of("errors", List.of(message))).build();
    }
}
