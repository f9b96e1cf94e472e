package io.weir.core.plugin;

import java.util.List;
import java.util.Objects;

/**
 * Two or more bundles serve one plugin type with one version: the registry never picks one of them
 * silently; a job resolving to that version fails naming them.
 *
 * @param type the plugin type name
 * @param version the version they all declare
 * @param bundles the bundles' symbolic names, sorted, at least two
 */
public record PluginConflict(String type, PluginVersion version, List<String> bundles) {
    /** @throws IllegalArgumentException if fewer than two bundles are named */
    public PluginConflict {
        Objects.requireNonNull(type, "type");
        Objects.requireNonNull(version, "version");
        bundles = List.copyOf(bundles);
        if (bundles.size() < 2) {
            throw new IllegalArgumentException("a conflict needs two bundles, got " + bundles);
        }
    }

    /** @return a one-line description for errors and listings */
    public String describe() {
        return "plugin type '" + type + "' version " + version + " is served by " + bundles.size() + " bundles "
                + bundles + "; remove all but one of them from plugins/";
    }
}
