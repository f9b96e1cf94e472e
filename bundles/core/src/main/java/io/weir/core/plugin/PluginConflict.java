package io.weir.core.plugin;

import java.util.List;
import java.util.Objects;

/**
 * Two or more bundles (different symbolic names) serve one plugin type: the registry never picks one of them
 * silently, whatever their versions (a bundle declaring {@code keyed-aggregate} must not quietly replace the
 * shipped one, nor take over the jobs using it as if it were its next version); a job resolving that type fails
 * naming them. A new version of a plugin keeps its {@code Bundle-SymbolicName}; that is no conflict.
 *
 * @param type the plugin type name
 * @param origins every bundle and version serving the type, sorted by bundle then version; at least two bundles
 */
public record PluginConflict(String type, List<PluginOrigin> origins) {
    /** @throws IllegalArgumentException if fewer than two different bundles are named */
    public PluginConflict {
        Objects.requireNonNull(type, "type");
        origins = origins.stream().sorted(java.util.Comparator.comparing(PluginOrigin::bundle)
                .thenComparing(PluginOrigin::version)).toList();
        if (origins.stream().map(PluginOrigin::bundle).distinct().count() < 2) {
            throw new IllegalArgumentException("a conflict needs two bundles, got " + origins);
        }
    }

    /** @return a one-line description for errors and listings */
    public String describe() {
        return "plugin type '" + type + "' is served by " + origins.stream().map(PluginOrigin::bundle).distinct().count()
                + " bundles " + origins + "; remove all but one of them from plugins/ (a new version of a plugin keeps"
                + " its Bundle-SymbolicName)";
    }
}
