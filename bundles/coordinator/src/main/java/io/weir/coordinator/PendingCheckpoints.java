package io.weir.coordinator;

import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;

/**
 * The checkpoints in flight, by id, and the ids that recently left them: lets the coordinator tell
 * an ack for a pending checkpoint from a normal late ack (recently aborted or expired), a duplicate
 * (recently completed) and an ack for an id it never issued (PROTOCOL.md §2 "Acks").
 * Not thread-safe: checkpoint timer thread only.
 */
final class PendingCheckpoints {

    /** What the coordinator knows about a checkpoint id. */
    enum Status {
        /** Triggered, not yet completed or aborted. */
        PENDING,
        /** Among the last aborted or expired ids. */
        RECENTLY_ABORTED,
        /** Among the last completed ids. */
        RECENTLY_COMPLETED,
        /** Never issued, or finished too long ago to remember. */
        UNKNOWN
    }

    /** Pending checkpoints by id, ascending. Timer thread only. */
    private final TreeMap<Long, PendingCheckpoint> pending = new TreeMap<>();
    /** Timer thread only. */
    private final RecentCheckpointIds recentlyAborted;
    /** Timer thread only. */
    private final RecentCheckpointIds recentlyCompleted;

    /** @param recentCapacity aborted and completed ids remembered (each), ≥ 1 */
    PendingCheckpoints(int recentCapacity) {
        this.recentlyAborted = new RecentCheckpointIds(recentCapacity);
        this.recentlyCompleted = new RecentCheckpointIds(recentCapacity);
    }

    /** Adds a newly created checkpoint (its id comes from the id counter, so it is new). */
    void add(PendingCheckpoint p) {
        pending.put(p.checkpointId(), p);
    }

    /** @return the pending checkpoint with {@code id}, or null if it is not pending */
    PendingCheckpoint get(long id) {
        return pending.get(id);
    }

    /** @return what is known about {@code id}; an id both aborted and completed counts as aborted */
    Status statusOf(long id) {
        if (pending.containsKey(id)) {
            return Status.PENDING;
        }
        if (recentlyAborted.contains(id)) {
            return Status.RECENTLY_ABORTED;
        }
        return recentlyCompleted.contains(id) ? Status.RECENTLY_COMPLETED : Status.UNKNOWN;
    }

    /** @return checkpoints pending now */
    int size() {
        return pending.size();
    }

    boolean isEmpty() {
        return pending.isEmpty();
    }

    /** @return a copy of the pending checkpoints, oldest first (safe to abort while iterating) */
    List<PendingCheckpoint> all() {
        return new ArrayList<>(pending.values());
    }

    /** @return a copy of the pending checkpoints with an id below {@code id}, oldest first */
    List<PendingCheckpoint> olderThan(long id) {
        return new ArrayList<>(pending.headMap(id).values());
    }

    /** Removes checkpoint {@code id} and remembers it as completed. */
    void removeCompleted(long id) {
        pending.remove(id);
        recentlyCompleted.add(id);
    }

    /** Removes checkpoint {@code id} and remembers it as aborted. */
    void removeAborted(long id) {
        pending.remove(id);
        recentlyAborted.add(id);
    }
}
