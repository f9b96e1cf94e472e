package io.weir.coordinator;

import java.util.Iterator;
import java.util.LinkedHashSet;

/**
 * The last {@code capacity} checkpoint ids added, oldest evicted first: lets the coordinator tell a
 * normal late ack (for a recently aborted or expired checkpoint) from an ack for an id it never
 * issued (PROTOCOL.md §2 "Acks"). Not thread-safe: checkpoint timer thread only.
 */
final class RecentCheckpointIds {
    private final int capacity;
    /** Checkpoint timer thread only. */
    private final LinkedHashSet<Long> ids = new LinkedHashSet<>();

    /** @param capacity ids kept, ≥ 1 */
    RecentCheckpointIds(int capacity) {
        if (capacity < 1) {
            throw new IllegalArgumentException("capacity must be >= 1, got " + capacity);
        }
        this.capacity = capacity;
    }

    /** Adds {@code id}, evicting the oldest id if full. */
    void add(long id) {
        ids.add(id);
        if (ids.size() > capacity) {
            Iterator<Long> it = ids.iterator();
            it.next();
            it.remove();
        }
    }

    /** @return whether {@code id} is among the last ids added */
    boolean contains(long id) {
        return ids.contains(id);
    }
}
