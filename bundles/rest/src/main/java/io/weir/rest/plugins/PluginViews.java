package io.weir.rest.plugins;

import io.weir.rest.resource.Views;
import jakarta.json.bind.annotation.JsonbProperty;

import java.util.List;

/** The JSON of {@code /plugins} (docs/rest-api.md, "Plugins"). Immutable records, serialized by JSON-B. */
public final class PluginViews {
    private PluginViews() {
    }

    /**
     * One plugin file or bundle.
     *
     * @param bundle Bundle-SymbolicName; null for a file that is not a bundle
     * @param version Bundle-Version; null with {@code bundle}
     * @param state {@code ACTIVE}, {@code INSTALLED}, {@code RESOLVED}, … ; {@code PENDING} (FileInstall has not installed
     *        the file yet) or {@code FAILED} (the file cannot be a bundle)
     * @param file its file name in {@code plugins/}; null for a bundle installed otherwise
     * @param types the plugin types it declares
     * @param error what is wrong and what to do, one line; null if nothing is
     * @param jobs the node's jobs (not ended) that use one of its types
     */
    public record Plugin(@JsonbProperty(nillable = true) String bundle, @JsonbProperty(nillable = true) String version,
            String state, @JsonbProperty(nillable = true) String file, List<Type> types,
            @JsonbProperty(nillable = true) String error, List<JobRef> jobs) {
    }

    /**
     * A plugin type.
     *
     * @param name the type name in job files
     * @param kind {@code source}, {@code operator} or {@code sink}
     * @param settings the settings of its {@code config} when this plugin's factory serves the type; else empty
     */
    public record Type(String name, String kind, List<Views.Setting> settings) {
    }

    /**
     * A job that uses a plugin.
     *
     * @param id the job id
     * @param name the job name
     */
    public record JobRef(String id, String name) {
    }

    /** {@code GET /plugins}. */
    public record Plugins(List<Plugin> plugins) {
    }

    /**
     * {@code DELETE /plugins/:bundle}.
     *
     * @param bundle the removed plugin's bundle
     * @param version its version
     * @param file the deleted file
     */
    public record Removed(String bundle, String version, String file) {
    }
}
