package io.weir.core.plugin;

import io.weir.api.plugin.OperatorFactory;
import io.weir.api.plugin.SinkFactory;
import io.weir.api.plugin.SourceFactory;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.ServiceLoader;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeSet;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A {@link PluginRegistry} of explicitly added and removed factories (the OSGi layer calls these on
 * service bind/unbind, with the service's bundle as origin). Each type may have several versions;
 * one type from two different bundles is kept and reported by {@link #conflicts()}, and never resolved.
 *
 * <p>Thread-safe: the tables are guarded by {@code this}; listeners are called after the change,
 * outside the lock, on the thread that made it.
 */
public final class MapPluginRegistry implements PluginRegistry {
    private static final Logger LOG = LoggerFactory.getLogger(MapPluginRegistry.class);
    /** Highest version first; among equal versions by bundle name, so listings are stable. */
    private static final Comparator<PluginBinding> NEWEST_FIRST = Comparator
            .comparing((PluginBinding b) -> b.origin().version()).reversed()
            .thenComparing(b -> b.origin().bundle());

    /** Per kind, per type: its bindings, newest first. Guarded by {@code this}. */
    private final Map<String, List<PluginBinding>> sources = new HashMap<>();
    private final Map<String, List<PluginBinding>> operators = new HashMap<>();
    private final Map<String, List<PluginBinding>> sinks = new HashMap<>();
    private final List<Listener> listeners = new CopyOnWriteArrayList<>();

    /** @return a registry holding every factory visible to {@code loader} through ServiceLoader */
    public static MapPluginRegistry fromServiceLoader(ClassLoader loader) {
        MapPluginRegistry r = new MapPluginRegistry();
        ServiceLoader.load(SourceFactory.class, loader).forEach(r::addSource);
        ServiceLoader.load(OperatorFactory.class, loader).forEach(r::addOperator);
        ServiceLoader.load(SinkFactory.class, loader).forEach(r::addSink);
        return r;
    }

    /** Adds a source factory outside any bundle ({@link PluginOrigin#unbundled()}), replacing an unbundled one of its type. */
    public void addSource(SourceFactory f) {
        addSource(f, PluginOrigin.unbundled());
    }

    /** Adds an operator factory outside any bundle, replacing an unbundled one of its type. */
    public void addOperator(OperatorFactory f) {
        addOperator(f, PluginOrigin.unbundled());
    }

    /** Adds a sink factory outside any bundle, replacing an unbundled one of its type. */
    public void addSink(SinkFactory f) {
        addSink(f, PluginOrigin.unbundled());
    }

    /** Adds a source factory served by {@code origin}; one already there from the same origin is replaced. */
    public void addSource(SourceFactory f, PluginOrigin origin) {
        add(sources, new PluginBinding(f.type(), f, origin));
    }

    /** Adds an operator factory served by {@code origin}; one already there from the same origin is replaced. */
    public void addOperator(OperatorFactory f, PluginOrigin origin) {
        add(operators, new PluginBinding(f.type(), f, origin));
    }

    /** Adds a sink factory served by {@code origin}; one already there from the same origin is replaced. */
    public void addSink(SinkFactory f, PluginOrigin origin) {
        add(sinks, new PluginBinding(f.type(), f, origin));
    }

    /** Removes {@code f} (this very object) if it is registered. */
    public void removeSource(SourceFactory f) {
        remove(sources, f.type(), f);
    }

    /** Removes {@code f} (this very object) if it is registered. */
    public void removeOperator(OperatorFactory f) {
        remove(operators, f.type(), f);
    }

    /** Removes {@code f} (this very object) if it is registered. */
    public void removeSink(SinkFactory f) {
        remove(sinks, f.type(), f);
    }

    private void add(Map<String, List<PluginBinding>> table, PluginBinding b) {
        PluginBinding replaced = null;
        synchronized (this) {
            List<PluginBinding> list = new ArrayList<>(table.getOrDefault(b.type(), List.of()));
            for (int i = 0; i < list.size(); i++) {
                if (list.get(i).origin().equals(b.origin())) {
                    replaced = list.remove(i);
                    break;
                }
            }
            list.add(b);
            list.sort(NEWEST_FIRST);
            table.put(b.type(), List.copyOf(list));
        }
        if (replaced != null) {
            notify(replaced, false);
        }
        notify(b, true);
    }

    private void remove(Map<String, List<PluginBinding>> table, String type, Object factory) {
        PluginBinding removed = null;
        synchronized (this) {
            List<PluginBinding> list = new ArrayList<>(table.getOrDefault(type, List.of()));
            for (int i = 0; i < list.size(); i++) {
                if (list.get(i).factory() == factory) {
                    removed = list.remove(i);
                    break;
                }
            }
            if (list.isEmpty()) {
                table.remove(type);
            } else {
                table.put(type, List.copyOf(list));
            }
        }
        if (removed != null) {
            notify(removed, false);
        }
    }

    private void notify(PluginBinding b, boolean added) {
        for (Listener l : listeners) {
            try {
                l.changed(b, added);
            } catch (RuntimeException e) {
                LOG.error("A plugin registry listener failed on {} {}: {}", added ? "adding" : "removing", b, e.toString(), e);
            }
        }
    }

    @Override
    public Optional<SourceFactory> source(String type) {
        return highest(sources, type).map(b -> (SourceFactory) b.factory());
    }

    @Override
    public Optional<OperatorFactory> operator(String type) {
        return highest(operators, type).map(b -> (OperatorFactory) b.factory());
    }

    @Override
    public Optional<SinkFactory> sink(String type) {
        return highest(sinks, type).map(b -> (SinkFactory) b.factory());
    }

    private Optional<PluginBinding> highest(Map<String, List<PluginBinding>> table, String type) {
        try {
            return pick(bindings(table, type), VersionRange.ANY, Set.of());
        } catch (PluginResolutionException e) {
            return Optional.empty();
        }
    }

    private synchronized List<PluginBinding> bindings(Map<String, List<PluginBinding>> table, String type) {
        return table.getOrDefault(type, List.of());
    }

    @Override
    public Optional<PluginBinding> resolve(String type, VersionRange range, Set<PluginOrigin> excluded) {
        List<PluginBinding> all = new ArrayList<>();
        synchronized (this) {
            all.addAll(sources.getOrDefault(type, List.of()));
            if (all.isEmpty()) {
                all.addAll(operators.getOrDefault(type, List.of()));
            }
            if (all.isEmpty()) {
                all.addAll(sinks.getOrDefault(type, List.of()));
            }
        }
        return pick(all, range, excluded);
    }

    /**
     * @param newestFirst bindings of one type, newest first
     * @throws PluginResolutionException if they come from more than one bundle ({@link PluginConflict})
     */
    private static Optional<PluginBinding> pick(List<PluginBinding> newestFirst, VersionRange range, Set<PluginOrigin> excluded) {
        if (newestFirst.stream().map(b -> b.origin().bundle()).distinct().count() > 1) {
            throw new PluginResolutionException(new PluginConflict(newestFirst.get(0).type(),
                    newestFirst.stream().map(PluginBinding::origin).distinct().toList()).describe());
        }
        return newestFirst.stream()
                .filter(b -> range.includes(b.origin().version()) && !excluded.contains(b.origin())).findFirst();
    }

    @Override
    public synchronized List<PluginOrigin> versions(String type) {
        List<PluginBinding> all = new ArrayList<>(sources.getOrDefault(type, List.of()));
        all.addAll(operators.getOrDefault(type, List.of()));
        all.addAll(sinks.getOrDefault(type, List.of()));
        all.sort(NEWEST_FIRST);
        return all.stream().map(PluginBinding::origin).distinct().toList();
    }

    @Override
    public synchronized List<PluginConflict> conflicts() {
        List<PluginConflict> found = new ArrayList<>();
        for (Map<String, List<PluginBinding>> table : List.of(sources, operators, sinks)) {
            for (List<PluginBinding> list : table.values()) {
                if (list.stream().map(b -> b.origin().bundle()).distinct().count() > 1) {
                    found.add(new PluginConflict(list.get(0).type(), list.stream().map(PluginBinding::origin).distinct().toList()));
                }
            }
        }
        found.sort(Comparator.comparing(PluginConflict::type));
        return found;
    }

    @Override
    public AutoCloseable addListener(Listener listener) {
        listeners.add(listener);
        return () -> listeners.remove(listener);
    }

    @Override
    public synchronized SortedSet<String> types() {
        SortedSet<String> all = new TreeSet<>(sources.keySet());
        all.addAll(operators.keySet());
        all.addAll(sinks.keySet());
        return all;
    }
}
