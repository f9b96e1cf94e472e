package io.weir.ha.hazelcast.checkpoint;

import com.hazelcast.map.EntryProcessor;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Undoes one ADD of a completed-store entry whose checkpoint must not complete after all (the writer stopped its run
 * while the ADD was under way; {@link HazelcastCompletedCheckpointStore}): applies only if the entry is still at the
 * writer's epoch with that checkpoint as its newest, then drops it and puts back what the ADD subsumed (the oldest,
 * whose files were kept). Immutable and serializable.
 *
 * @param epoch the writer's epoch
 * @param checkpointId the checkpoint the ADD appended
 * @param subsumed what the ADD dropped, oldest first
 */
public record StoreRetraction(long epoch, long checkpointId, List<StoredCheckpoint> subsumed)
        implements EntryProcessor<String, StoreState, Boolean> {
    private static final long serialVersionUID = 1L;

    /** Copies {@code subsumed}. */
    public StoreRetraction {
        subsumed = List.copyOf(subsumed);
    }

    /** @return whether the entry was put back (false: another writer or checkpoint came first; nothing changed) */
    @Override
    public Boolean process(Map.Entry<String, StoreState> entry) {
        StoreState state = entry.getValue();
        if (state == null || state.epoch() != epoch || state.latestId() != checkpointId) {
            return false;
        }
        List<StoredCheckpoint> before = new ArrayList<>(subsumed);
        before.addAll(state.checkpoints().subList(0, state.checkpoints().size() - 1));
        entry.setValue(new StoreState(epoch, before));
        return true;
    }
}
