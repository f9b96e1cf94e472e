package io.weir.cli.inventory;

import io.weir.core.inventory.InstalledPlugin;
import io.weir.core.inventory.PluginInventory;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Logs one WARN line per failed plugin with its cause and what to do, once per plugin and error for
 * the life of the framework (a bad plugin must not flood the log, nor print a stack trace per
 * command). Thread-safe: the set of reported failures is concurrent.
 */
public final class FailureReporter {
    private static final Logger LOG = LoggerFactory.getLogger(FailureReporter.class);

    private final PluginInventory inventory;
    /** "name\nerror" of every failure logged. */
    private final Set<String> reported = ConcurrentHashMap.newKeySet();

    /** @param inventory what to report on */
    public FailureReporter(PluginInventory inventory) {
        this.inventory = inventory;
    }

    /** Logs the failures not logged yet. */
    public void report() {
        for (InstalledPlugin p : inventory.plugins()) {
            if (p.failed() && reported.add(p.name() + "\n" + p.error())) {
                LOG.warn("Plugin {} is not usable: {}", p.describe(), p.error());
            }
        }
    }
}
