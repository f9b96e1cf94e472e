package io.weir.cli;

import io.weir.cli.command.PluginAvailability;
import io.weir.api.plugin.OperatorFactory;
import io.weir.api.plugin.SinkFactory;
import io.weir.api.plugin.SourceFactory;
import io.weir.core.plugin.PluginRegistry;
import org.osgi.framework.Bundle;
import org.osgi.framework.BundleContext;
import org.osgi.framework.Constants;
import org.osgi.framework.InvalidSyntaxException;
import org.osgi.framework.ServiceListener;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.BooleanSupplier;
import java.util.stream.Stream;

/**
 * Waits for plugin types that FileInstall is still installing from the plugins directory
 * ({@code felix.fileinstall.dir}). Returns early once the directory has settled: every
 * {@code *.jar} in it is an ACTIVE bundle that has registered its services if it declares SCR
 * components (a bundle is ACTIVE before SCR registers its factories), and no plugin factory service came or went for
 * {@value #QUIET_MS} ms (nothing more can arrive), so an unknown type fails fast instead of after
 * the timeout. Polls every {@value #POLL_MS} ms: a check is a map lookup plus a bundle scan, and
 * polling cannot miss an event that fired before we looked.
 *
 * <p>One wait at a time (the command's thread); the event time is written by Felix's event threads.
 */
final class FileInstallAvailability implements PluginAvailability {
    private static final Logger LOG = LoggerFactory.getLogger(FileInstallAvailability.class);
    static final long POLL_MS = 20;
    /** How long no plugin factory may come or go before the plugins count as settled, in ms. */
    static final long QUIET_MS = 200;
    /** Service filter matching every plugin factory. */
    static final String FACTORY_FILTER = "(|(objectClass=" + SourceFactory.class.getName() + ")(objectClass="
            + OperatorFactory.class.getName() + ")(objectClass=" + SinkFactory.class.getName() + "))";
    /** Framework property FileInstall reads its directories from (comma-separated). */
    static final String FILEINSTALL_DIR = "felix.fileinstall.dir";

    private final BundleContext context;
    private final PluginRegistry registry;
    /** System.nanoTime() of the last plugin factory service event; written by event threads. */
    private volatile long lastFactoryEvent;

    FileInstallAvailability(BundleContext context, PluginRegistry registry) {
        this.context = context;
        this.registry = registry;
    }

    @Override
    public void await(Set<String> types, Duration timeout) throws InterruptedException {
        long start = System.nanoTime();
        if (waitUntil(() -> missing(types).isEmpty() || settled(), timeout)) {
            LOG.debug("Plugin wait over after {} ms; missing {}", (System.nanoTime() - start) / 1_000_000, missing(types));
        } else {
            LOG.warn("Plugin types {} still not installed after {} ms; plugin files not started yet: {}",
                    missing(types), timeout.toMillis(), pendingPluginFiles());
        }
    }

    /** Waits until the plugins directory has settled (see the class Javadoc), or {@code timeout}. */
    void awaitSettled(Duration timeout) throws InterruptedException {
        if (!waitUntil(this::settled, timeout)) {
            LOG.warn("Plugin files not all started after {} ms: {}", timeout.toMillis(), pendingPluginFiles());
        }
    }

    /** @return whether {@code done} became true within {@code timeout} */
    private boolean waitUntil(BooleanSupplier done, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        ServiceListener listener = event -> lastFactoryEvent = System.nanoTime();
        lastFactoryEvent = System.nanoTime();
        addListener(listener);
        try {
            while (!done.getAsBoolean()) {
                if (System.nanoTime() - deadline >= 0) {
                    return false;
                }
                Thread.sleep(POLL_MS);
            }
            return true;
        } finally {
            context.removeServiceListener(listener);
        }
    }

    private void addListener(ServiceListener listener) {
        try {
            context.addServiceListener(listener, FACTORY_FILTER);
        } catch (InvalidSyntaxException e) {
            throw new IllegalStateException("bad filter " + FACTORY_FILTER, e);
        }
    }

    /** @return every plugin file is a started bundle and no factory came or went for {@value #QUIET_MS} ms */
    private boolean settled() {
        return System.nanoTime() - lastFactoryEvent >= QUIET_MS * 1_000_000 && pendingPluginFiles().isEmpty();
    }

    private Set<String> missing(Set<String> types) {
        Set<String> missing = new TreeSet<>(types);
        missing.removeAll(registry.types());
        return missing;
    }

    /** @return plugin jar file names with no ACTIVE (or, for fragments, RESOLVED) bundle yet, over every watched directory */
    List<String> pendingPluginFiles() {
        String dirs = context.getProperty(FILEINSTALL_DIR);
        if (dirs == null) {
            return List.of();
        }
        List<String> files = new ArrayList<>();
        for (String dir : dirs.split(",")) {
            if (dir.isBlank()) {
                continue;
            }
            try (Stream<Path> s = Files.list(Path.of(dir.trim()))) {
                s.map(p -> p.getFileName().toString()).filter(n -> n.endsWith(".jar")).forEach(files::add);
            } catch (IOException e) {
                // no such directory: nothing will arrive from it
            }
        }
        Bundle[] bundles = context.getBundles();
        return files.stream().sorted().filter(name -> !started(name, bundles)).toList();
    }

    private static boolean started(String fileName, Bundle[] bundles) {
        for (Bundle b : bundles) {
            String location = b.getLocation();
            if (location != null && (location.endsWith("/" + fileName) || location.endsWith("\\" + fileName))) {
                boolean fragment = b.getHeaders("").get(Constants.FRAGMENT_HOST) != null;
                if (fragment) {
                    return b.getState() == Bundle.RESOLVED || b.getState() == Bundle.ACTIVE;
                }
                // a plugin declares its factories as SCR components, registered some time after the bundle is
                // ACTIVE (long for a large bundle on a loaded machine): until one is, its types may still come
                boolean declaresComponents = b.getHeaders("").get("Service-Component") != null;
                return b.getState() == Bundle.ACTIVE && (!declaresComponents || b.getRegisteredServices() != null);
            }
        }
        return false;
    }
}
