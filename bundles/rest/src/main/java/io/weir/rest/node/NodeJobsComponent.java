package io.weir.rest.node;

import io.weir.core.engine.Engine;
import io.weir.core.plugin.PluginRegistry;
import jakarta.json.spi.JsonProvider;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;

import java.time.Duration;

/**
 * Registers the node's {@link NodeJobs} as a service for the REST resources, once the engine and
 * the plugin registry are there. Immediate, so the job table lives as long as the bundle (a
 * delayed component would be disposed, with its jobs, whenever no resource uses it).
 */
@Component(service = NodeJobsComponent.class, immediate = true)
public final class NodeJobsComponent {
    /** Longest wait for plugin types a submitted job names. */
    static final Duration PLUGIN_WAIT = Duration.ofSeconds(10);

    private final NodeJobs jobs;
    private final PluginRegistry plugins;

    /**
     * @param engine runs the jobs
     * @param plugins the installed plugins
     */
    @Activate
    public NodeJobsComponent(@Reference Engine engine, @Reference PluginRegistry plugins) {
        JsonProvider json = JsonProvider.provider();
        this.plugins = plugins;
        this.jobs = new NodeJobs(engine, plugins, json, new RegistryPluginWait(plugins, json, PLUGIN_WAIT),
                System::currentTimeMillis);
    }

    /** @return the node's jobs */
    public NodeJobs jobs() {
        return jobs;
    }

    /** @return the installed plugins */
    public PluginRegistry plugins() {
        return plugins;
    }
}
