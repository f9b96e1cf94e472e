package io.weir.launcher;

import org.osgi.framework.BundleContext;
import org.osgi.framework.Filter;
import org.osgi.framework.InvalidSyntaxException;
import org.osgi.util.tracker.ServiceTracker;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * How a command crosses from the class path into OSGi without any Weir class on the class path.
 *
 * <p>The CLI bundle ({@code io.weir.cli}, component {@code CliCommandComponent}) registers a
 * {@code java.util.function.Function} service with {@code weir.command=cli}. {@code java.*} classes
 * come from the boot class loader for everyone, so the launcher can cast the service object to
 * {@code Function} and call {@code apply} on its own main thread. The argument is a
 * {@code Map<String, Object>} of JDK types:
 * <ul>
 * <li>{@code command}: {@code "run"} or {@code "plugins"}</li>
 * <li>{@code job}: the job file's absolute path (String), {@code run} only</li>
 * <li>{@code overrides}: {@code Map<String, String>} from {@code --set}, {@code run} only</li>
 * </ul>
 * The result is the process exit code (Integer). Output goes straight to System.out/err, which
 * the bundles share with the launcher. Interrupting the calling thread cancels a running job (the
 * Ctrl-C hook does that). The map's other side: {@code io.weir.cli.command.CommandRequest}.
 */
public final class CommandBridge {
    /** The service filter of the CLI's entry point. */
    static final String FILTER = "(&(objectClass=java.util.function.Function)(weir.command=cli))";
    /** Symbolic name of the bundle that provides it, for error messages. */
    static final String CLI_BUNDLE = "io.weir.cli";

    private CommandBridge() {
    }

    /** @return the request map of {@code weir run} */
    public static Map<String, Object> runRequest(Path jobFile, Map<String, String> overrides) {
        Map<String, Object> request = new LinkedHashMap<>();
        request.put("command", "run");
        request.put("job", jobFile.toAbsolutePath().normalize().toString());
        request.put("overrides", new LinkedHashMap<>(overrides));
        return request;
    }

    /** @return the request map of {@code weir plugins} */
    public static Map<String, Object> pluginsRequest() {
        Map<String, Object> request = new LinkedHashMap<>();
        request.put("command", "plugins");
        return request;
    }

    /**
     * Waits for the CLI bundle's entry point and calls it on the current thread.
     *
     * @param context the system bundle's context
     * @param request see the class Javadoc
     * @param timeoutMs the longest wait for the service (it appears when the CLI bundle starts)
     * @param startErrors errors Felix reported while starting bundles, quoted when the service is missing
     * @return the exit code the command returned
     * @throws LauncherException (exit 1) if the service does not appear in time
     * @throws InterruptedException if interrupted while waiting for it
     */
    @SuppressWarnings("unchecked")
    static int call(BundleContext context, Map<String, Object> request, long timeoutMs, List<String> startErrors)
            throws InterruptedException {
        Filter filter;
        try {
            filter = context.createFilter(FILTER);
        } catch (InvalidSyntaxException e) {
            throw new IllegalStateException("bad filter " + FILTER, e);
        }
        ServiceTracker<Object, Object> tracker = new ServiceTracker<>(context, filter, null);
        tracker.open();
        try {
            Object service = tracker.waitForService(timeoutMs);
            if (service == null) {
                throw new LauncherException(ExitCodes.FAILED, "the CLI bundle (" + CLI_BUNDLE + ") offered no command service within "
                        + timeoutMs + " ms; is it in the feature and active?"
                        + (startErrors.isEmpty() ? "" : " Bundle errors: " + String.join("; ", startErrors)));
            }
            Object result = ((Function<Object, Object>) service).apply(request);
            if (!(result instanceof Integer rc)) {
                throw new LauncherException(ExitCodes.FAILED, "the CLI bundle returned " + result + " instead of an exit code");
            }
            return rc;
        } finally {
            tracker.close();
        }
    }
}
