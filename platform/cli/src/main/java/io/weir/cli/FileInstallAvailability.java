package io.weir.cli;

import io.weir.cli.command.PluginAvailability;
import io.weir.api.plugin.OperatorFactory;
import io.weir.api.plugin.SinkFactory;
import io.weir.api.plugin.SourceFactory;
import io.weir.core.plugin.PluginRegistry;
import io.weir.cli.inventory.BundlePluginInventory;
import io.weir.cli.inventory.FailureReporter;
import org.osgi.framework.BundleContext;
import org.osgi.framework.BundleListener;
import org.osgi.framework.InvalidSyntaxException;
import org.osgi.framework.ServiceListener;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.BooleanSupplier;

/**
 * Waits for plugin types that FileInstall is still installing from the plugins directory
 * ({@code felix.fileinstall.dir}). Returns early once the directory has settled: every plugin of the
 * {@link BundlePluginInventory} is settled — an ACTIVE bundle that has registered its services if it
 * declares SCR components (a bundle is ACTIVE before SCR registers its factories), or failed (not a
 * jar, not a bundle, unresolved imports, activator or component failure: it will never start, so it
 * counts as settled with its error) — and no plugin factory service or bundle came or went for
 * {@value #QUIET_MS} ms (nothing more can arrive), so an unknown type fails fast instead of after
 * the timeout. Polls every {@value #POLL_MS} ms: polling cannot miss an event that fired before we looked.
 * Then each failed plugin is logged as one WARN line with its cause ({@link FailureReporter}), once.
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

    private final BundleContext context;
    private final PluginRegistry registry;
    private final BundlePluginInventory inventory;
    private final FailureReporter reporter;
    /** System.nanoTime() of the last plugin factory service or bundle event; written by event threads. */
    private volatile long lastEvent;

    FileInstallAvailability(BundleContext context, PluginRegistry registry, BundlePluginInventory inventory, FailureReporter reporter) {
        this.context = context;
        this.registry = registry;
        this.inventory = inventory;
        this.reporter = reporter;
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
        reporter.report();
    }

    /** Waits until the plugins directory has settled (see the class Javadoc), or {@code timeout}. */
    void awaitSettled(Duration timeout) throws InterruptedException {
        if (!waitUntil(this::settled, timeout)) {
            LOG.warn("Plugin files not all started after {} ms: {}", timeout.toMillis(), pendingPluginFiles());
        }
        reporter.report();
    }

    /** @return whether {@code done} became true within {@code timeout} */
    private boolean waitUntil(BooleanSupplier done, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        ServiceListener listener = event -> lastEvent = System.nanoTime();
        BundleListener bundles = event -> lastEvent = System.nanoTime();
        lastEvent = System.nanoTime();
        addListener(listener);
        context.addBundleListener(bundles);
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
            context.removeBundleListener(bundles);
        }
    }

    private void addListener(ServiceListener listener) {
        try {
            context.addServiceListener(listener, FACTORY_FILTER);
        } catch (InvalidSyntaxException e) {
            throw new IllegalStateException("bad filter " + FACTORY_FILTER, e);
        }
    }

    /** @return every plugin is settled and no factory or bundle came or went for {@value #QUIET_MS} ms */
    private boolean settled() {
        return System.nanoTime() - lastEvent >= QUIET_MS * 1_000_000 && pendingPluginFiles().isEmpty();
    }

    private Set<String> missing(Set<String> types) {
        Set<String> missing = new TreeSet<>(types);
        missing.removeAll(registry.types());
        return missing;
    }

    /** @return names of plugins not settled yet (neither started nor failed), over every watched directory */
    List<String> pendingPluginFiles() {
        return inventory.snapshot().stream().filter(e -> !e.settled()).map(e -> e.plugin().name()).toList();
    }
}
