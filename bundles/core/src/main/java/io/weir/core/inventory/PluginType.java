package io.weir.core.inventory;

import java.util.Objects;

/**
 * A plugin type a bundle declares.
 *
 * @param name the type name used in job files ({@code weir.plugin.type})
 * @param kind {@code source}, {@code operator} or {@code sink}
 */
public record PluginType(String name, String kind) {
    /** @throws NullPointerException if either is null */
    public PluginType {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(kind, "kind");
    }
}
