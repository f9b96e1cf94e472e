package io.weir.rest.node;

import io.weir.core.engine.Engine;
import io.weir.core.inventory.PluginInventory;
import io.weir.core.plugin.PluginRegistry;
import jakarta.json.spi.JsonProvider;
import org.osgi.framework.BundleContext;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.osgi.service.component.annotations.ReferencePolicy;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;

/**
 * Registers the node's {@link NodeJobs} as a service for the REST resources, once the engine and
 * the plugin registry are there. Immediate, so the job table lives as long as the bundle (a
 * delayed component would be disposed, with its jobs, whenever no resource uses it).
 *
 * <p>On activation it resumes the jobs of the registry in {@code <data-dir>/jobs} on a thread of
 * its own (a job's plugins may still be being installed, and SCR's thread must not wait for them);
 * on deactivation (the node stopping) it closes the registry before the engine cancels the jobs,
 * so they stay RUNNING there and resume on the next start.
 *
 * <p>While active it moves running jobs between plugin versions as plugins come and go ({@link PluginUpgrades}).
 */
@Component(service = NodeJobsComponent.class, immediate = true)
public final class NodeJobsComponent {
    private static final Logger LOG = LoggerFactory.getLogger(NodeJobsComponent.class);
    /** Longest wait for plugin types a submitted job names. */
    static final Duration PLUGIN_WAIT = Duration.ofSeconds(10);
    /** The registry's directory inside the node's data directory. */
    static final String JOBS_DIR = "jobs";

    private final NodeJobs jobs;
    private final PluginRegistry plugins;
    private final Thread recovery;
    /** The plugin inventory (the CLI bundle's service), when there is one; SCR sets it on its threads. */
    @Reference(cardinality = ReferenceCardinality.OPTIONAL, policy = ReferencePolicy.DYNAMIC)
    private volatile PluginInventory inventory;
    private final PluginUpgrades upgrades;

    /**
     * @param context the bundle's context, for the data directory
     * @param engine runs the jobs
     * @param plugins the installed plugins
     */
    @Activate
    public NodeJobsComponent(BundleContext context, @Reference Engine engine, @Reference PluginRegistry plugins) {
        JsonProvider json = JsonProvider.provider();
        this.plugins = plugins;
        JobRegistry registry = new JobRegistry(NodeProperties.dataDir(context).resolve(JOBS_DIR), json);
        this.jobs = new NodeJobs(engine, plugins, json, new RegistryPluginWait(plugins, json, PLUGIN_WAIT, this::whyUnavailable),
                System::currentTimeMillis, registry, this::whyUnavailable);
        org.osgi.framework.Bundle system = context.getBundle(org.osgi.framework.Constants.SYSTEM_BUNDLE_LOCATION);
        this.upgrades = new PluginUpgrades(jobs, plugins, NodeProperties.savepointDir(context), System::currentTimeMillis,
                () -> system == null || system.getState() == org.osgi.framework.Bundle.STOPPING);
        this.recovery = new Thread(() -> {
            try {
                int resumed = jobs.recover();
                LOG.info("Job registry {}: {} job(s) resumed", registry.directory(), resumed);
            } catch (RuntimeException e) {
                LOG.error("Cannot read the job registry {}; no job was resumed: {}", registry.directory(), e.getMessage(), e);
            }
        }, "weir-node-recovery");
        recovery.setDaemon(true);
        recovery.start();
    }

    /** Stops persisting (before the engine cancels the jobs) and stops a recovery still under way. */
    @Deactivate
    void deactivate() {
        upgrades.close();
        jobs.close();
        recovery.interrupt();
    }

    /** @return the node's jobs */
    public NodeJobs jobs() {
        return jobs;
    }

    /** @return the installed plugins */
    public PluginRegistry plugins() {
        return plugins;
    }

    /** @return the plugin inventory, or {@link PluginInventory#EMPTY} while there is none */
    public PluginInventory inventory() {
        PluginInventory current = inventory;
        return current == null ? PluginInventory.EMPTY : current;
    }

    private java.util.Optional<String> whyUnavailable(String type) {
        return inventory().whyUnavailable(type);
    }
}
