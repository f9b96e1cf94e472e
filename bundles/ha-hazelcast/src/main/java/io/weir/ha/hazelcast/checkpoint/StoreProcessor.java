package io.weir.ha.hazelcast.checkpoint;

import com.hazelcast.map.EntryProcessor;

import java.io.Serializable;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The only way a job's completed-store entry changes: runs atomically on the key's partition owner (and, with the
 * same input, on its backups), refusing a writer whose epoch is older than the stored one. Immutable and
 * serializable.
 *
 * @param op what to do
 * @param epoch the writer's fencing epoch, ≥ 1
 * @param checkpoint for {@link Op#ADD}: the new checkpoint; null otherwise
 * @param maxRetained for {@link Op#ADD}: how many to keep, ≥ 1
 */
public record StoreProcessor(Op op, long epoch, StoredCheckpoint checkpoint, int maxRetained)
        implements EntryProcessor<String, StoreState, StoreProcessor.Result> {
    private static final long serialVersionUID = 1L;

    /** The operations. */
    public enum Op {
        /** Stamps the entry with the writer's epoch (a new owner claiming the store); changes nothing else. */
        CLAIM,
        /** Appends {@code checkpoint} (its id must exceed every stored one) and drops the oldest beyond {@code maxRetained}. */
        ADD,
        /** Removes the entry (a globally terminal job); idempotent. */
        REMOVE
    }

    /**
     * @param refused true if a newer epoch is stored (nothing changed)
     * @param notNewer true if ADD's id is not above the newest stored one (nothing changed)
     * @param storedEpoch the epoch stored after the operation, or the newer one that refused it
     * @param latestId the newest stored id after the operation
     * @param subsumed what ADD dropped, oldest first: no longer referenced by the store, so its files may go
     */
    public record Result(boolean refused, boolean notNewer, long storedEpoch, long latestId, List<StoredCheckpoint> subsumed)
            implements Serializable {
    }

    @Override
    public Result process(Map.Entry<String, StoreState> entry) {
        StoreState state = entry.getValue();
        if (state != null && state.epoch() > epoch) {
            return new Result(true, false, state.epoch(), state.latestId(), List.of());
        }
        List<StoredCheckpoint> kept = state == null ? new ArrayList<>() : new ArrayList<>(state.checkpoints());
        switch (op) {
            case CLAIM -> {
                StoreState claimed = new StoreState(epoch, kept);
                entry.setValue(claimed);
                return new Result(false, false, epoch, claimed.latestId(), List.of());
            }
            case ADD -> {
                long latest = state == null ? 0 : state.latestId();
                if (checkpoint.checkpointId() <= latest) {
                    return new Result(false, true, state.epoch(), latest, List.of());
                }
                kept.add(checkpoint);
                List<StoredCheckpoint> subsumed = new ArrayList<>();
                while (kept.size() > maxRetained) {
                    subsumed.add(kept.remove(0));
                }
                entry.setValue(new StoreState(epoch, kept));
                return new Result(false, false, epoch, checkpoint.checkpointId(), subsumed);
            }
            case REMOVE -> {
                if (state != null) {
                    entry.setValue(null);
                }
                return new Result(false, false, epoch, 0, List.of());
            }
            default -> throw new IllegalStateException("unknown store operation " + op);
        }
    }
}
