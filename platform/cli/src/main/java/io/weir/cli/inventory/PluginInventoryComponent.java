package io.weir.cli.inventory;

import io.weir.core.inventory.InstalledPlugin;
import io.weir.core.inventory.PluginInventory;
import org.osgi.framework.BundleContext;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.runtime.ServiceComponentRuntime;

import java.util.List;
import java.util.Optional;

/**
 * Registers the framework's {@link PluginInventory} ({@link BundlePluginInventory}) for the CLI
 * commands and the node's REST API. Immediate, so it listens for activator failures
 * ({@link StartFailures}) from the time this bundle starts, before FileInstall installs plugins.
 *
 * <p>Thread-safe: delegates to thread-safe objects.
 */
@Component(service = {PluginInventory.class, PluginInventoryComponent.class}, immediate = true)
public final class PluginInventoryComponent implements PluginInventory {
    private final BundleContext context;
    private final StartFailures startFailures = new StartFailures();
    private final BundlePluginInventory inventory;

    /**
     * @param context this bundle's context
     * @param scr Declarative Services' runtime (component descriptions and failures)
     */
    @Activate
    public PluginInventoryComponent(BundleContext context, @Reference ServiceComponentRuntime scr) {
        this.context = context;
        context.addBundleListener(startFailures);
        this.inventory = new BundlePluginInventory(context, scr, startFailures);
    }

    @Deactivate
    void deactivate() {
        context.removeBundleListener(startFailures);
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
