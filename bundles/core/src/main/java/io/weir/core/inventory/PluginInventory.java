package io.weir.core.inventory;

import java.util.List;
import java.util.Optional;

/**
 * What is installed as plugins and what is wrong with it: every file in the plugins directory and
 * every bundle that declares or registers plugin factories, with its state, its types and its
 * error. In OSGi a service of the CLI bundle ({@code io.weir.cli}) that reads the framework, the
 * plugins directory and Declarative Services' view each time it is asked; it only reports and never
 * changes what serves a type. Thread-safe.
 */
public interface PluginInventory {
    /**
     * @return one entry per plugin file and per plugin bundle, sorted by file name then bundle name;
     *         a snapshot taken now
     */
    List<InstalledPlugin> plugins();

    /**
     * Why a type that no factory serves is not usable, when a plugin declares it but failed.
     *
     * @param type a plugin type name from a job file
     * @return e.g. {@code 'boom-op' is provided by plugin boom 1.0.0 (boom.jar), whose component failed to activate:
     *         java.lang.IllegalStateException: no licence}; empty if no plugin declares {@code type} or the one that
     *         does has no error
     */
    Optional<String> whyUnavailable(String type);

    /** An inventory with nothing in it (outside OSGi: plugins come from the class path and cannot fail). */
    PluginInventory EMPTY = new PluginInventory() {
        @Override
        public List<InstalledPlugin> plugins() {
            return List.of();
        }

        @Override
        public Optional<String> whyUnavailable(String type) {
            return Optional.empty();
        }
    };
}
