package io.weir.core.plugin;

import io.weir.api.plugin.OperatorFactory;
import io.weir.api.plugin.SinkFactory;
import io.weir.api.plugin.SourceFactory;

import java.util.Optional;
import java.util.SortedSet;

/**
 * The installed plugins, by type name. In OSGi it tracks factory services as plugins come and go;
 * outside OSGi it is filled from ServiceLoader or by hand. Thread-safe.
 */
public interface PluginRegistry {
    /** @return the source factory of {@code type} */
    Optional<SourceFactory> source(String type);

    /** @return the operator factory of {@code type} */
    Optional<OperatorFactory> operator(String type);

    /** @return the sink factory of {@code type} */
    Optional<SinkFactory> sink(String type);

    /** @return every installed type name, sorted (for "unknown type" errors) */
    SortedSet<String> types();
}
