package io.weir.rest.resource;

import io.weir.core.engine.JobStatus;
import io.weir.rest.node.NodeJob;
import io.weir.rest.node.NodeJobs;
import io.weir.rest.node.NodeJobsComponent;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import org.osgi.framework.BundleContext;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.jakartars.whiteboard.propertytypes.JakartarsResource;

import java.time.ZoneId;
import java.util.Map;
import java.util.TimeZone;
import java.util.function.LongSupplier;

/**
 * The node as a whole: {@code GET /overview} (job counts), {@code GET /config} (what the web client
 * needs). Flink's field names; docs/rest-api.md. {@code /plugins} is {@code io.weir.rest.plugins.PluginsResource}.
 *
 * <p>Thread-safe: stateless over thread-safe collaborators.
 */
@Component(service = NodeResource.class, immediate = true)
@JakartarsResource
@Path("/")
@Produces(MediaType.APPLICATION_JSON)
public final class NodeResource {
    /** {@code refresh-interval} of {@code /config}, ms (Flink's default). */
    static final long REFRESH_INTERVAL_MS = 3000;

    private final NodeJobs jobs;
    private final String version;
    private final LongSupplier clock;

    /**
     * @param context this bundle's context, for the version
     * @param node the node's jobs
     */
    @Activate
    public NodeResource(BundleContext context, @Reference NodeJobsComponent node) {
        this(node.jobs(), context.getBundle().getVersion().toString(), System::currentTimeMillis);
    }

    /**
     * @param jobs the node's jobs
     * @param version Weir's version
     * @param clock ms since the epoch (for the time zone offset)
     */
    public NodeResource(NodeJobs jobs, String version, LongSupplier clock) {
        this.jobs = jobs;
        this.version = version;
        this.clock = clock;
    }

    /** @return {@code GET /overview}: one task manager (this JVM) and the jobs by state */
    @GET
    @Path("overview")
    public Views.Overview overview() {
        long running = 0;
        long finished = 0;
        long cancelled = 0;
        long failed = 0;
        for (NodeJob j : jobs.list()) {
            JobStatus s = j.status();
            if (s == JobStatus.FINISHED) {
                finished++;
            } else if (s == JobStatus.CANCELED) {
                cancelled++;
            } else if (s == JobStatus.FAILED) {
                failed++;
            } else {
                running++;
            }
        }
        return new Views.Overview(1, running, finished, cancelled, failed, version);
    }

    /** @return {@code GET /config} */
    @GET
    @Path("config")
    public Views.Config config() {
        TimeZone zone = TimeZone.getDefault();
        return new Views.Config(REFRESH_INTERVAL_MS, ZoneId.systemDefault().getId(), zone.getOffset(clock.getAsLong()),
                version, Map.of("web-submit", true, "web-cancel", true, "web-rescale", false, "web-history", false));
    }
}
