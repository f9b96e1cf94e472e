package io.weir.runtime.io.network;

import io.weir.api.Row;
import io.weir.core.state.KeyGroupAssignment;
import io.weir.core.state.KeyHashVersion;

/**
 * Chooses the output channel (consumer subtask) of a record for one edge. Task thread only (the
 * rebalance selector keeps a cursor).
 */
public interface ChannelSelector {
    /** Returned by {@link #select} when the record goes to every channel. */
    int BROADCAST = -1;

    /** @return the channel index in [0, channels), or {@link #BROADCAST} */
    int select(Row row);

    /** @return a selector sending everything to the single channel 0 (forward edges) */
    static ChannelSelector forward() {
        return row -> 0;
    }

    /** @return a selector sending every record to all channels */
    static ChannelSelector broadcast() {
        return row -> BROADCAST;
    }

    /** @return a round-robin selector starting at {@code start} */
    static ChannelSelector rebalance(int channels, int start) {
        return new ChannelSelector() {
            private int next = Math.floorMod(start, channels);

            @Override
            public int select(Row row) {
                int c = next;
                next = c + 1 == channels ? 0 : c + 1;
                return c;
            }
        };
    }

    /**
     * @return a selector routing by key group (placed as {@code keys.hashVersion()} places keys) to the consumer
     *         subtask owning it (PROTOCOL.md §7)
     */
    static ChannelSelector hash(KeySelector keys, int maxParallelism, int channels) {
        KeyHashVersion version = keys.hashVersion();
        return row -> KeyGroupAssignment.subtaskForKeyGroup(
                version.keyGroupForHash(keys.hash(row), maxParallelism), maxParallelism, channels);
    }
}
