package io.weir.cli.inventory;

import io.weir.core.inventory.InstalledPlugin;
import io.weir.core.inventory.PluginInventory;
import org.osgi.framework.BundleContext;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.runtime.ServiceComponentRuntime;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.List;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Registers the framework's {@link PluginInventory} ({@link BundlePluginInventory}) for the CLI
 * commands and the node's REST API. Immediate, so it listens for activator failures
 * ({@link StartFailures}) from the time this bundle starts, before FileInstall installs plugins.
 * Every {@value #REPORT_INTERVAL_MS} ms a thread of its own logs plugins that failed since
 * ({@link FailureReporter}: one WARN line each, once): FileInstall fires no event for a file it
 * cannot install, and a component fails only when the engine first gets its service.
 *
 * <p>Thread-safe: delegates to thread-safe objects.
 */
@Component(service = {PluginInventory.class, PluginInventoryComponent.class}, immediate = true)
public final class PluginInventoryComponent implements PluginInventory {
    private static final Logger LOG = LoggerFactory.getLogger(PluginInventoryComponent.class);
    private final BundleContext context;
    private final StartFailures startFailures = new StartFailures();
    private final BundlePluginInventory inventory;
    private final FailureReporter reporter;
    private final ScheduledExecutorService reports;
    /** How often failed plugins are looked for, ms: a directory listing and the bundles' states. */
    static final long REPORT_INTERVAL_MS = 1000;

    /**
     * @param context this bundle's context
     * @param scr Declarative Services' runtime (component descriptions and failures)
     */
    @Activate
    public PluginInventoryComponent(BundleContext context, @Reference ServiceComponentRuntime scr) {
        this.context = context;
        context.addBundleListener(startFailures);
        this.inventory = new BundlePluginInventory(context, scr, startFailures);
        this.reporter = new FailureReporter(inventory);
        this.reports = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "weir-plugin-inventory");
            t.setDaemon(true);
            return t;
        });
        reports.scheduleWithFixedDelay(this::reportSafely, REPORT_INTERVAL_MS, REPORT_INTERVAL_MS, TimeUnit.MILLISECONDS);
    }

    @Deactivate
    void deactivate() {
        reports.shutdownNow();
        context.removeBundleListener(startFailures);
    }

    private void reportSafely() {
        try {
            reporter.report();
        } catch (RuntimeException e) {
            // the framework is stopping (bundle contexts become invalid): the next run or none
            LOG.debug("Cannot report failed plugins: {}", e.toString());
        }
    }

    /** @return logs failed plugins not logged yet (one WARN line each) */
    public FailureReporter reporter() {
        return reporter;
    }

    /** @return the inventory with its framework-specific parts (settledness, the plugins directory) */
    public BundlePluginInventory inventory() {
        return inventory;
    }

    @Override
    public List<InstalledPlugin> plugins() {
        return inventory.plugins();
    }

    @Override
    public Optional<String> whyUnavailable(String type) {
        return inventory.whyUnavailable(type);
    }
}
