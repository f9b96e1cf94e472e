package io.weir.cli;

import io.weir.api.plugin.OperatorFactory;
import io.weir.api.plugin.SinkFactory;
import io.weir.api.plugin.SourceFactory;
import io.weir.core.plugin.PluginRegistry;

import java.util.Optional;
import java.util.SortedSet;

/**
 * The current {@link PluginRegistry} service on every call, so waiting for plugins and parsing
 * see the registry that is registered now, even if the runtime's component was replaced since the
 * command started. Thread-safe.
 */
final class TrackedPluginRegistry implements PluginRegistry {
    private final FrameworkServices.Tracked<PluginRegistry> tracked;

    TrackedPluginRegistry(FrameworkServices.Tracked<PluginRegistry> tracked) {
        this.tracked = tracked;
    }

    @Override
    public Optional<SourceFactory> source(String type) {
        return tracked.get().source(type);
    }

    @Override
    public Optional<OperatorFactory> operator(String type) {
        return tracked.get().operator(type);
    }

    @Override
    public Optional<SinkFactory> sink(String type) {
        return tracked.get().sink(type);
    }

    @Override
    public SortedSet<String> types() {
        return tracked.get().types();
    }

    @Override
    public Optional<io.weir.core.plugin.PluginBinding> resolve(String type, io.weir.core.plugin.VersionRange range,
            java.util.Set<io.weir.core.plugin.PluginOrigin> excluded) {
        return tracked.get().resolve(type, range, excluded);
    }

    @Override
    public java.util.List<io.weir.core.plugin.PluginOrigin> versions(String type) {
        return tracked.get().versions(type);
    }

    @Override
    public java.util.List<io.weir.core.plugin.PluginConflict> conflicts() {
        return tracked.get().conflicts();
    }
}
