package io.weir.api.plugin;

import io.weir.api.Schema;
import io.weir.api.source.SourceReader;

import java.util.List;

/**
 * Creates one kind of source, named by {@link #type()} in job files; registered like
 * {@link OperatorFactory}. Must be thread-safe.
 */
public interface SourceFactory {
    /** @return the type name used in job files, e.g. {@code "file"} */
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
     * Whether a restore may give this source another parallelism than the checkpoint's. Only a source that keeps
     * all of its position in operator <em>list</em> state (not union state, not keyed state), one element per
     * independent split (e.g. a Kafka partition and its offset), may say yes: the runtime then deals the
     * elements of the old subtasks round-robin over the new ones (docs/runtime.md), and each reader must read
     * exactly the splits it restored. A reader whose restored list is empty reads nothing. Sources that split
     * their input by subtask index (the {@code file} source) keep the default, and a restore with another
     * parallelism is refused before the job starts.
     *
     * @return false by default
     */
    default boolean supportsRescale() {
        return false;
    }

    /**
     * Validates the config (including that input files exist) and derives the output schema.
     *
     * @throws IllegalArgumentException naming the bad field
     */
    Schema outputSchema(PluginConfig config);

    /** @return whether the source ends by itself (a file) or runs until cancelled (datagen without a limit) */
    boolean isBounded(PluginConfig config);

    /** @return a reader for one subtask */
    SourceReader create(PluginConfig config, Schema output);
}
