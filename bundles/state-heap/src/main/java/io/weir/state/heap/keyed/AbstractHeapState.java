package io.weir.state.heap.keyed;

import java.io.DataInput;
import java.io.DataOutput;
import java.io.IOException;

/**
 * What every keyed heap state shares: its name, kind, table, and how one stored value is written to
 * and read from a snapshot.
 *
 * <p>Task thread only, except {@link #writeValue}, which the asynchronous part of a snapshot calls on
 * another thread with values of a captured (immutable) map.
 *
 * @param <V> the value stored in the table
 */
abstract class AbstractHeapState<V> {
    final String name;
    final StateKind kind;
    final KeyContext ctx;
    final StateTable<V> table;

    AbstractHeapState(String name, StateKind kind, KeyContext ctx, int numKeyGroups) {
        this.name = name;
        this.kind = kind;
        this.ctx = ctx;
        this.table = new StateTable<>(ctx, numKeyGroups);
    }

    /** Writes one stored value with the descriptor's serializers. Any thread; must not modify the value. */
    abstract void writeValue(V value, DataOutput out) throws IOException;

    /** Reads one stored value written by {@link #writeValue}; containers get the current epoch. Task thread. */
    abstract V readValue(DataInput in) throws IOException;

    /** @throws IllegalStateException if no current key was set */
    final void requireKey() {
        ctx.requireKey(name);
    }
}
