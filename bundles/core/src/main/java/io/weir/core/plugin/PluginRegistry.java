package io.weir.core.plugin;

import io.weir.api.plugin.OperatorFactory;
import io.weir.api.plugin.SinkFactory;
import io.weir.api.plugin.SourceFactory;

import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.SortedSet;

/**
 * The installed plugins, by type name and version. In OSGi it tracks factory services as plugins
 * come and go (a factory's version is its bundle's version); outside OSGi it is filled from
 * ServiceLoader or by hand (version {@link PluginVersion#UNVERSIONED}). Several versions of one type
 * may be installed side by side; {@link #resolve} picks the highest in a job's range. Two bundles
 * serving one type with one version are a {@link PluginConflict}: never chosen silently. Thread-safe.
 */
public interface PluginRegistry {
    /** @return the source factory of {@code type}: its highest installed version, empty if none or if that version is in conflict */
    Optional<SourceFactory> source(String type);

    /** @return the operator factory of {@code type}, as {@link #source} */
    Optional<OperatorFactory> operator(String type);

    /** @return the sink factory of {@code type}, as {@link #source} */
    Optional<SinkFactory> sink(String type);

    /** @return every installed type name, sorted (for "unknown type" errors) */
    SortedSet<String> types();

    /**
     * Resolves a type for a job operator: the highest installed version in {@code range} whose origin
     * is not in {@code excluded}.
     *
     * @param type the plugin type name
     * @param range the versions the job accepts ({@link VersionRange#ANY} for any)
     * @param excluded origins not to pick (versions a job rolled back from); empty for none
     * @return the binding, or empty if no installed version of {@code type} fits
     * @throws PluginResolutionException if the version picked is served by two or more bundles, naming them
     */
    default Optional<PluginBinding> resolve(String type, VersionRange range, Set<PluginOrigin> excluded) {
        PluginOrigin unbundled = PluginOrigin.unbundled();
        if (!range.includes(unbundled.version()) || excluded.contains(unbundled)) {
            return Optional.empty();
        }
        Optional<?> f = source(type);
        if (f.isEmpty()) {
            f = operator(type);
        }
        if (f.isEmpty()) {
            f = sink(type);
        }
        return f.map(factory -> new PluginBinding(type, factory, unbundled));
    }

    /** @return the origins serving {@code type}, highest version first; empty if it is not installed */
    default List<PluginOrigin> versions(String type) {
        return types().contains(type) ? List.of(PluginOrigin.unbundled()) : List.of();
    }

    /** @return every type and version served by more than one bundle (for the plugin listing), sorted by type */
    default List<PluginConflict> conflicts() {
        return List.of();
    }

    /**
     * Registers a listener told of every factory added or removed, on the thread that adds or removes it
     * (in OSGi: the thread that registers or unregisters the service; a removal is told before the
     * bundle stops, so the factory's classes still work while the listener runs).
     *
     * @param listener told of each change; must not throw
     * @return closing it removes the listener
     */
    default AutoCloseable addListener(Listener listener) {
        return () -> { };
    }

    /** Told of changes to a registry. */
    @FunctionalInterface
    interface Listener {
        /**
         * @param binding the factory added or removed, with its type and origin
         * @param added true if it was added, false if removed
         */
        void changed(PluginBinding binding, boolean added);
    }
}
