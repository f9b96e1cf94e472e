package io.weir.cli;

import io.weir.cli.command.CommandRequest;
import io.weir.cli.inventory.PluginInventoryComponent;
import io.weir.cli.command.ExitCodes;
import io.weir.cli.command.PluginsCommand;
import io.weir.cli.command.RunCommand;
import io.weir.core.engine.Engine;
import io.weir.core.plugin.PluginRegistry;
import jakarta.json.spi.JsonProvider;
import org.osgi.framework.Bundle;
import org.osgi.framework.BundleContext;
import org.osgi.framework.FrameworkUtil;
import org.osgi.service.component.runtime.ServiceComponentRuntime;

import java.io.PrintStream;
import java.time.Duration;

/**
 * Runs a {@link CommandRequest} inside OSGi: finds the engine services (waiting for them while the
 * runtime starts) and plugins (waiting for FileInstall), then delegates to the plain-Java commands.
 * Shared by the launcher's entry point ({@link CliCommandComponent}) and the Gogo commands
 * ({@link GogoCommandsComponent}).
 *
 * <p>Thread-safe: holds only collaborators; each call works on its own objects.
 */
final class OsgiCommands {
    /** Longest wait for the Engine and PluginRegistry services after the framework started. */
    static final Duration SERVICE_WAIT = Duration.ofSeconds(15);
    /** Longest wait for the plugin types a job names (FileInstall installs plugins asynchronously). */
    static final Duration PLUGIN_WAIT = Duration.ofSeconds(10);

    private final BundleContext context;
    private final FrameworkServices services;

    private final PluginInventoryComponent inventory;

    OsgiCommands(BundleContext context, ServiceComponentRuntime scr, PluginInventoryComponent inventory) {
        this.context = context;
        this.services = new FrameworkServices(context, scr);
        this.inventory = inventory;
    }

    /**
     * @param request what to run
     * @param out normal output
     * @param err error messages
     * @return the exit code ({@link ExitCodes})
     */
    int execute(CommandRequest request, PrintStream out, PrintStream err) {
        try (FrameworkServices.Tracked<PluginRegistry> registryService = services.await(PluginRegistry.class, SERVICE_WAIT)) {
            PluginRegistry registry = new TrackedPluginRegistry(registryService);
            FileInstallAvailability availability = new FileInstallAvailability(context, registry, inventory.inventory(),
                    inventory.reporter());
            switch (request.command()) {
                case PLUGINS -> {
                    availability.awaitSettled(PLUGIN_WAIT);
                    return PluginsCommand.run(registry, OsgiCommands::origin, inventory.plugins(), out);
                }
                case RUN -> {
                    try (FrameworkServices.Tracked<Engine> engine = services.await(Engine.class, SERVICE_WAIT)) {
                        return new RunCommand(engine.get(), registry, JsonProvider.provider(), availability, PLUGIN_WAIT, out, err,
                                inventory::whyUnavailable).run(request.jobFile(), request.overrides());
                    }
                }
                default -> throw new IllegalStateException("unhandled command " + request.command());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            err.println("Interrupted while waiting for the engine to start");
            return ExitCodes.INTERRUPTED;
        } catch (IllegalStateException e) {
            err.println("error: the Weir engine is not available: " + e.getMessage());
            return ExitCodes.JOB_FAILED;
        }
    }

    /** @return "symbolic-name version" of the bundle that provides {@code factory} */
    private static String origin(Object factory) {
        Bundle b = FrameworkUtil.getBundle(factory.getClass());
        return b == null ? factory.getClass().getName() : b.getSymbolicName() + " " + b.getVersion();
    }
}
