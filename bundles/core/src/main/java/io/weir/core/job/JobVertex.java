package io.weir.core.job;

import io.weir.api.Schema;
import io.weir.api.plugin.PluginConfig;

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
 */
public record JobVertex(String id, VertexKind kind, String type, int parallelism, PluginConfig config,
        Schema inputSchema, Schema outputSchema, boolean keyed) {
}
