package io.weir.cli;

import io.weir.cli.command.CommandRequest;
import io.weir.cli.command.Overrides;
import io.weir.cli.inventory.PluginInventoryComponent;
import org.osgi.framework.BundleContext;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.runtime.ServiceComponentRuntime;

import java.nio.file.Path;
import java.util.Arrays;
import java.util.Map;

/**
 * Gogo shell commands in scope {@code weir} (see {@code bin/weir run --shell} / {@code bin/weir shell}):
 * <pre>
 * g! weir:plugins
 * g! weir:run examples/flight-delays.json execution.checkpointing.interval=2s
 * </pre>
 * Same behaviour and output as the command line; the return value is the exit code. Relative job
 * paths resolve against the launcher's working directory. Gogo calls these on the shell's thread.
 */
@Component(service = GogoCommandsComponent.class,
        property = {"osgi.command.scope=weir", "osgi.command.function=run", "osgi.command.function=plugins"})
public final class GogoCommandsComponent {
    private final OsgiCommands commands;

    /**
     * @param context this bundle's context
     * @param scr Declarative Services' runtime, to explain missing engine services
     * @param inventory the plugins and their errors
     */
    @Activate
    public GogoCommandsComponent(BundleContext context, @Reference ServiceComponentRuntime scr,
            @Reference PluginInventoryComponent inventory) {
        this.commands = new OsgiCommands(context, scr, inventory);
    }

    /**
     * {@code weir:run JOB.json [key=value ...]}: runs a job to its end, printing checkpoints.
     *
     * @param job the job file
     * @param overrides configuration overrides {@code key=value}
     * @return the exit code (0 FINISHED, 1 FAILED/CANCELED, 2 invalid job)
     */
    public int run(String job, String... overrides) {
        Map<String, String> parsed;
        try {
            parsed = Overrides.parse(Arrays.asList(overrides));
        } catch (IllegalArgumentException e) {
            System.err.println("error: " + e.getMessage());
            return io.weir.cli.command.ExitCodes.USAGE;
        }
        return commands.execute(new CommandRequest(CommandRequest.Command.RUN, Path.of(job), parsed), System.out, System.err);
    }

    /**
     * {@code weir:plugins}: lists installed plugin types.
     *
     * @return 0
     */
    public int plugins() {
        return commands.execute(new CommandRequest(CommandRequest.Command.PLUGINS, null, Map.of()), System.out, System.err);
    }
}
