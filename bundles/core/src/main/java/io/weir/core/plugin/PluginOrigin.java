package io.weir.core.plugin;

import java.util.Objects;

/**
 * Where a plugin factory comes from: its bundle's symbolic name and version.
 *
 * @param bundle the bundle's symbolic name ({@code Bundle-SymbolicName}); {@value #UNBUNDLED} for a
 *        factory that does not come from a bundle
 * @param version the bundle's version
 */
public record PluginOrigin(String bundle, PluginVersion version) {
    /** The bundle name of factories found outside OSGi (ServiceLoader, tests). */
    public static final String UNBUNDLED = "unbundled";

    /** @throws NullPointerException if a field is null */
    public PluginOrigin {
        Objects.requireNonNull(bundle, "bundle");
        Objects.requireNonNull(version, "version");
    }

    /** @return an origin for a factory outside any bundle */
    public static PluginOrigin unbundled() {
        return new PluginOrigin(UNBUNDLED, PluginVersion.UNVERSIONED);
    }

    /** @return {@code bundle version}, e.g. {@code io.weir.plugins.operators-basic 1.1.0} */
    @Override
    public String toString() {
        return bundle + " " + version;
    }
}
