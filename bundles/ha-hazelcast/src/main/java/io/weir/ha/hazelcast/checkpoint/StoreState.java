package io.weir.ha.hazelcast.checkpoint;

import io.weir.ha.hazelcast.member.Fenced;

import java.io.Serializable;
import java.util.List;

/**
 * The value of a job's entry in the completed-store map.
 *
 * @param epoch the newest fencing epoch that wrote the entry, ≥ 0
 * @param checkpoints the retained checkpoints, oldest first, ids strictly increasing
 */
public record StoreState(long epoch, List<StoredCheckpoint> checkpoints) implements Serializable, Fenced {
    /** @throws IllegalArgumentException if the epoch is negative or the ids do not strictly increase */
    public StoreState {
        checkpoints = List.copyOf(checkpoints);
        if (epoch < 0) {
            throw new IllegalArgumentException("store epoch must be >= 0, got " + epoch);
        }
        for (int i = 1; i < checkpoints.size(); i++) {
            if (checkpoints.get(i).checkpointId() <= checkpoints.get(i - 1).checkpointId()) {
                throw new IllegalArgumentException("stored checkpoint ids must strictly increase: " + checkpoints);
            }
        }
    }

    /** @return the newest checkpoint's id, 0 if none */
    public long latestId() {
        return checkpoints.isEmpty() ? 0 : checkpoints.get(checkpoints.size() - 1).checkpointId();
    }

    /** @return the newest checkpoint's id: after a split, the copy holding the newer checkpoint wins */
    @Override
    public long progress() {
        return latestId();
    }
}
