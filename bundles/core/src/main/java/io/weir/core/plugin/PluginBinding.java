package io.weir.core.plugin;

import java.util.Objects;

/**
 * One factory of a plugin type with where it comes from: what a job operator is built with.
 *
 * @param type the plugin type name
 * @param factory the factory (a {@link io.weir.api.plugin.SourceFactory}, {@link io.weir.api.plugin.OperatorFactory}
 *        or {@link io.weir.api.plugin.SinkFactory}); two bindings are the same only if their factories are the same
 *        object, so a bundle updated in place (same version, new revision) counts as a change
 * @param origin its bundle and version
 */
public record PluginBinding(String type, Object factory, PluginOrigin origin) {
    /** @throws NullPointerException if a field is null */
    public PluginBinding {
        Objects.requireNonNull(type, "type");
        Objects.requireNonNull(factory, "factory");
        Objects.requireNonNull(origin, "origin");
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof PluginBinding b && type.equals(b.type) && factory == b.factory && origin.equals(b.origin);
    }

    @Override
    public int hashCode() {
        return Objects.hash(type, System.identityHashCode(factory), origin);
    }

    /** @return {@code type (bundle version)} */
    @Override
    public String toString() {
        return type + " (" + origin + ")";
    }
}
