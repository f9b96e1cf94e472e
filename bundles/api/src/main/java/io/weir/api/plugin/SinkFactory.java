package io.weir.api.plugin;

import io.weir.api.Schema;
import io.weir.api.sink.TwoPhaseCommittingSink;

import java.util.List;

/**
 * Creates one kind of sink, named by {@link #type()} in job files; registered like
 * {@link OperatorFactory}. Must be thread-safe.
 */
public interface SinkFactory {
    /** @return the type name used in job files, e.g. {@code "file-2pc"} */
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
     * Validates the config against the input schema.
     *
     * @throws IllegalArgumentException naming the bad field
     */
    void validate(PluginConfig config, Schema input);

    /** @return a sink for one subtask */
    TwoPhaseCommittingSink<?> create(PluginConfig config, Schema input);
}
