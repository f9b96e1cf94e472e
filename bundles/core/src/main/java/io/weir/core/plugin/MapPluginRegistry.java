package io.weir.core.plugin;

import io.weir.api.plugin.OperatorFactory;
import io.weir.api.plugin.SinkFactory;
import io.weir.api.plugin.SourceFactory;

import java.util.Optional;
import java.util.ServiceLoader;
import java.util.SortedSet;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;

/**
 * A {@link PluginRegistry} backed by concurrent maps; plugins are added and removed explicitly
 * (the OSGi layer calls these on service bind/unbind). Thread-safe.
 */
public final class MapPluginRegistry implements PluginRegistry {
    private final ConcurrentMap<String, SourceFactory> sources = new ConcurrentHashMap<>();
    private final ConcurrentMap<String, OperatorFactory> operators = new ConcurrentHashMap<>();
    private final ConcurrentMap<String, SinkFactory> sinks = new ConcurrentHashMap<>();

    /** @return a registry holding every factory visible to {@code loader} through ServiceLoader */
    public static MapPluginRegistry fromServiceLoader(ClassLoader loader) {
        MapPluginRegistry r = new MapPluginRegistry();
        ServiceLoader.load(SourceFactory.class, loader).forEach(r::addSource);
        ServiceLoader.load(OperatorFactory.class, loader).forEach(r::addOperator);
        ServiceLoader.load(SinkFactory.class, loader).forEach(r::addSink);
        return r;
    }

    /** Adds or replaces the source factory of its type. */
    public void addSource(SourceFactory f) {
        sources.put(f.type(), f);
    }

    /** Adds or replaces the operator factory of its type. */
    public void addOperator(OperatorFactory f) {
        operators.put(f.type(), f);
    }

    /** Adds or replaces the sink factory of its type. */
    public void addSink(SinkFactory f) {
        sinks.put(f.type(), f);
    }

    /** Removes {@code f} if it is the registered factory of its type. */
    public void removeSource(SourceFactory f) {
        sources.remove(f.type(), f);
    }

    /** Removes {@code f} if it is the registered factory of its type. */
    public void removeOperator(OperatorFactory f) {
        operators.remove(f.type(), f);
    }

    /** Removes {@code f} if it is the registered factory of its type. */
    public void removeSink(SinkFactory f) {
        sinks.remove(f.type(), f);
    }

    @Override
    public Optional<SourceFactory> source(String type) {
        return Optional.ofNullable(sources.get(type));
    }

    @Override
    public Optional<OperatorFactory> operator(String type) {
        return Optional.ofNullable(operators.get(type));
    }

    @Override
    public Optional<SinkFactory> sink(String type) {
        return Optional.ofNullable(sinks.get(type));
    }

    @Override
    public SortedSet<String> types() {
        SortedSet<String> all = new TreeSet<>(sources.keySet());
        all.addAll(operators.keySet());
        all.addAll(sinks.keySet());
        return all;
    }
}
