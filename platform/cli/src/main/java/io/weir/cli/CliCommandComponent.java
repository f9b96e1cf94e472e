package io.weir.cli;

import io.weir.cli.command.CommandRequest;
import io.weir.cli.command.ExitCodes;
import io.weir.cli.inventory.PluginInventoryComponent;
import org.osgi.framework.BundleContext;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.runtime.ServiceComponentRuntime;

import java.util.Map;
import java.util.function.Function;

/**
 * The launcher's way into OSGi. Registered as a {@code java.util.function.Function} with
 * {@value #COMMAND_PROPERTY}={@value #COMMAND_VALUE}: a JDK type, so the launcher (whose class
 * loader has no Weir classes) can look it up from the system bundle's context, cast it and call
 * {@code apply(request)} on its main thread. The request is a map of JDK types
 * ({@link CommandRequest#fromMap}); the result is the process exit code. Output goes to
 * {@code System.out}/{@code System.err}. Interrupting the calling thread (the launcher's Ctrl-C
 * hook does) cancels a running job.
 *
 * <p>Immediate and without references to the engine, so the launcher finds it as soon as this
 * bundle starts; the engine services are awaited per call, with a diagnosis when they do not come.
 */
@Component(service = Function.class, immediate = true,
        property = CliCommandComponent.COMMAND_PROPERTY + "=" + CliCommandComponent.COMMAND_VALUE)
public final class CliCommandComponent implements Function<Map<String, Object>, Integer> {
    /** Service property naming this entry point. */
    public static final String COMMAND_PROPERTY = "weir.command";
    /** Its value. */
    public static final String COMMAND_VALUE = "cli";

    private final OsgiCommands commands;

    /**
     * @param context this bundle's context
     * @param scr Declarative Services' runtime, to explain missing engine services
     * @param inventory the plugins and their errors
     */
    @Activate
    public CliCommandComponent(BundleContext context, @Reference ServiceComponentRuntime scr,
            @Reference PluginInventoryComponent inventory) {
        this.commands = new OsgiCommands(context, scr, inventory);
    }

    /**
     * @param request see {@link CommandRequest#fromMap}
     * @return the exit code ({@link ExitCodes}); {@link ExitCodes#USAGE} for a malformed request
     */
    @Override
    public Integer apply(Map<String, Object> request) {
        CommandRequest parsed;
        try {
            parsed = CommandRequest.fromMap(request);
        } catch (IllegalArgumentException e) {
            System.err.println("error: " + e.getMessage());
            return ExitCodes.USAGE;
        }
        return commands.execute(parsed, System.out, System.err);
    }
}
