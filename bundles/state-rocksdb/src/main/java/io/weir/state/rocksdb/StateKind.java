package io.weir.state.rocksdb;

import io.weir.api.state.StateDescriptor;

import java.io.IOException;

/**
 * The four kinds of keyed state, with their one-byte code in the canonical keyed-state format
 * (docs/checkpoint-format.md, "Heap keyed state"; the same codes the heap backend writes).
 */
enum StateKind {
    VALUE(1),
    LIST(2),
    MAP(3),
    REDUCING(4),
    /**
     * Timers of a {@link io.weir.core.state.KeyedTimerQueue} (not a user state: no descriptor maps to it). In
     * RocksDB one row per timer, {@code key group | timestamp | key} ({@link RocksTimerQueue}); in the canonical
     * format one entry per key, its timestamps ascending, as the heap backend writes them.
     */
    TIMERS(5);

    final byte code;

    StateKind(int code) {
        this.code = (byte) code;
    }

    /** @return the kind of state a descriptor describes */
    static StateKind of(StateDescriptor<?> d) {
        if (d instanceof StateDescriptor.Value<?>) {
            return VALUE;
        } else if (d instanceof StateDescriptor.List<?>) {
            return LIST;
        } else if (d instanceof StateDescriptor.Map<?, ?>) {
            return MAP;
        }
        return REDUCING;
    }

    /** @throws IOException if {@code code} is none of the kinds */
    static StateKind ofCode(byte code) throws IOException {
        for (StateKind k : values()) {
            if (k.code == code) {
                return k;
            }
        }
        throw new IOException("unknown keyed state kind code " + code);
    }
}
