package io.weir.rest.resource;

import io.weir.api.plugin.PluginSetting;
import io.weir.core.engine.JobStatus;
import io.weir.core.plugin.PluginRegistry;
import io.weir.rest.node.NodeJob;
import io.weir.rest.node.NodeJobs;
import io.weir.rest.node.NodeJobsComponent;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import org.osgi.framework.Bundle;
import org.osgi.framework.BundleContext;
import org.osgi.framework.FrameworkUtil;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.jakartars.whiteboard.propertytypes.JakartarsResource;

import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TimeZone;
import java.util.function.Function;
import java.util.function.LongSupplier;

/**
 * The node as a whole: {@code GET /overview} (job counts), {@code GET /config} (what the web client
 * needs), {@code GET /plugins} (installed plugin types and their settings). Flink's field names; docs/rest-api.md.
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
    private final PluginRegistry plugins;
    private final Function<Object, String> origin;
    private final String version;
    private final LongSupplier clock;

    /**
     * @param context this bundle's context, for the version
     * @param node the node's jobs and plugins
     */
    @Activate
    public NodeResource(BundleContext context, @Reference NodeJobsComponent node) {
        this(node.jobs(), node.plugins(), NodeResource::bundleOf, context.getBundle().getVersion().toString(),
                System::currentTimeMillis);
    }

    /**
     * @param jobs the node's jobs
     * @param plugins the installed plugins
     * @param origin where a plugin factory comes from (bundle name and version)
     * @param version Weir's version
     * @param clock ms since the epoch (for the time zone offset)
     */
    public NodeResource(NodeJobs jobs, PluginRegistry plugins, Function<Object, String> origin, String version, LongSupplier clock) {
        this.jobs = jobs;
        this.plugins = plugins;
        this.origin = origin;
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

    /** @return {@code GET /plugins}: each installed type with its kind, bundle and settings, sorted by type */
    @GET
    @Path("plugins")
    public Views.Plugins plugins() {
        List<Views.Plugin> list = new ArrayList<>();
        for (String type : plugins.types()) {
            plugins.source(type).ifPresent(f -> list.add(new Views.Plugin(type, "source", origin.apply(f), settings(f.settings()))));
            plugins.operator(type).ifPresent(f -> list.add(new Views.Plugin(type, "operator", origin.apply(f), settings(f.settings()))));
            plugins.sink(type).ifPresent(f -> list.add(new Views.Plugin(type, "sink", origin.apply(f), settings(f.settings()))));
        }
        return new Views.Plugins(list);
    }

    private static List<Views.Setting> settings(List<PluginSetting> settings) {
        return settings.stream().map(s -> new Views.Setting(s.name(), s.type(), s.defaultValue(), s.required(), s.description())).toList();
    }

    private static String bundleOf(Object factory) {
        Bundle b = FrameworkUtil.getBundle(factory.getClass());
        return b == null ? factory.getClass().getName() : b.getSymbolicName() + " " + b.getVersion();
    }
}
