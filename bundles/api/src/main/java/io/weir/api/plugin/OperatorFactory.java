package io.weir.api.plugin;

import io.weir.api.Schema;
import io.weir.api.operator.StreamOperator;

/**
 * Creates one kind of operator, named by {@link #type()} in job files. Plugins register
 * implementations as OSGi services (service property {@code weir.plugin.type}) or, outside OSGi,
 * through {@code META-INF/services}. Must be thread-safe.
 */
public interface OperatorFactory {
    /** @return the type name used in job files, e.g. {@code "keyed-aggregate"} */
    String type();

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

    /** @return a new operator instance for one subtask; config was validated by {@link #outputSchema} */
    StreamOperator create(PluginConfig config, Schema input);
}
