package io.weir.core.job;

import io.weir.api.Schema;
import io.weir.api.plugin.PluginConfig;
import io.weir.core.plugin.PluginBinding;
import io.weir.core.plugin.VersionRange;

/**
 * One operator of a job, validated against its plugin.
 *
 * @param id unique id in the job
 * @param kind source, operator or sink
 * @param type plugin type name
 * @param parallelism subtasks, 1..max parallelism
 * @param config the plugin's config
 * @param inputSchema schema of its input rows (null for sources)
 * @param outputSchema schema of its output rows (null for sinks)
 * @param keyed whether the operator uses keyed state (its input is a hash edge)
 * @param versions the plugin versions the job accepts for this operator ({@code "version"} in the job spec)
 * @param plugin the factory (with its bundle and version) the job was validated with and its tasks are built with,
 *        or null for a vertex built by hand (tasks then look the type up in the engine's registry)
 */
public record JobVertex(String id, VertexKind kind, String type, int parallelism, PluginConfig config,
        Schema inputSchema, Schema outputSchema, boolean keyed, VersionRange versions, PluginBinding plugin) {
    /** @throws NullPointerException if {@code versions} is null */
    public JobVertex {
        java.util.Objects.requireNonNull(versions, "versions");
    }

    /** A vertex not bound to a plugin version: any version, factory looked up by type when tasks are built. */
    public JobVertex(String id, VertexKind kind, String type, int parallelism, PluginConfig config,
            Schema inputSchema, Schema outputSchema, boolean keyed) {
        this(id, kind, type, parallelism, config, inputSchema, outputSchema, keyed, VersionRange.ANY, null);
    }
}
