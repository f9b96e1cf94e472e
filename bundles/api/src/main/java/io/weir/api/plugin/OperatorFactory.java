package io.weir.api.plugin;

import io.weir.api.Schema;
import io.weir.api.operator.StreamOperator;

import java.util.List;

/**
 * Creates one kind of operator, named by {@link #type()} in job files. Plugins register
 * implementations as OSGi services (service property {@code weir.plugin.type}) or, outside OSGi,
 * through {@code META-INF/services}. Must be thread-safe.
 */
public interface OperatorFactory {
    /** @return the type name used in job files, e.g. {@code "keyed-aggregate"} */
    String type();

    /**
     * The settings of this type's {@code config} object, for {@code weir plugins} and {@code GET /plugins}. A
     * description only: validation stays in the factory.
     *
     * @return the settings in the order to show them; empty (the default) if the plugin does not describe them
     */
    default List<PluginSetting> settings() {
        return List.of();
    }

    /**
     * Validates the config against the input schema and derives the output schema. Called when a
     * job is submitted, before anything runs.
     *
     * @throws IllegalArgumentException naming the bad field (see {@link PluginConfig#error})
     */
    Schema outputSchema(PluginConfig config, Schema input);

    /** @return whether the operator needs keyed state, so its input edge must be {@code hash} */
    default boolean requiresKeyedInput() {
        return false;
    }

    /**
     * The fields a keyed operator groups its state and output by, as its config names them. The
     * engine keys state by the input edge's hash {@code keys}, so a job whose edge keys differ from
     * these would fold rows of different groups together and label them wrongly; the job parser
     * rejects it, naming both. Called only when {@link #requiresKeyedInput()} is true, after
     * {@link #outputSchema} accepted {@code config}.
     *
     * @param config the operator's config, already validated by {@link #outputSchema}
     * @return the key field names (order does not matter to the check: the same set of fields
     *         gives the same groups), or an empty list if the operator does not declare them, in
     *         which case the engine checks only that its inputs are hash edges
     */
    default List<String> keyFields(PluginConfig config) {
        return List.of();
    }

    /**
     * The side outputs this operator writes with {@link io.weir.api.operator.OperatorContext#sideOutput}, which a
     * downstream operator consumes with {@code {"from": id, "output": name}}. A side output carries rows of the
     * operator's input schema. Called after {@link #outputSchema} accepted {@code config}.
     *
     * @return the side output names (empty by default)
     */
    default List<String> sideOutputs(PluginConfig config) {
        return List.of();
    }

    /** @return a new operator instance for one subtask; config was validated by {@link #outputSchema} */
    StreamOperator create(PluginConfig config, Schema input);
}
