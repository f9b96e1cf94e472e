package io.weir.rest.node;

import io.weir.core.plugin.PluginOrigin;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.function.UnaryOperator;

/**
 * A job's plugin moves (newest last) and the plugin versions it rolled back from and so does not take again
 * until a newer one appears. Shared by the successive runs of one job on the node (each upgrade starts a new
 * run with the same id). Kept in memory: a node restart forgets it (the job then resolves afresh).
 *
 * <p>Thread-safe: guarded by {@code this}.
 */
public final class UpgradeHistory {
    /** Moves kept per job; older ones are dropped. */
    static final int CAPACITY = 32;

    private final List<PluginUpgrade> upgrades = new ArrayList<>();
    private final java.util.Set<PluginOrigin> excluded = new java.util.HashSet<>();
    /** How many moves were dropped from the front, so indexes given out by {@link #add} stay valid. */
    private int dropped;

    /** @return the moves, oldest first */
    public synchronized List<PluginUpgrade> upgrades() {
        return List.copyOf(upgrades);
    }

    /** @return the plugin versions the job rolled back from */
    public synchronized Set<PluginOrigin> excluded() {
        return Set.copyOf(excluded);
    }

    /** Adds a move; @return its index, for {@link #update} */
    synchronized int add(PluginUpgrade u) {
        if (upgrades.size() == CAPACITY) {
            upgrades.remove(0);
            dropped++;
        }
        upgrades.add(u);
        return dropped + upgrades.size() - 1;
    }

    /** Replaces move {@code index} with {@code change} applied to it (nothing if it was dropped meanwhile). */
    synchronized void update(int index, UnaryOperator<PluginUpgrade> change) {
        int i = index - dropped;
        if (i >= 0 && i < upgrades.size()) {
            upgrades.set(i, change.apply(upgrades.get(i)));
        }
    }

    /** Never picks {@code origin} for the job again (it failed on restore), until a newer version is installed. */
    synchronized void exclude(PluginOrigin origin) {
        excluded.add(origin);
    }
}
