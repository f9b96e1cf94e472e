package io.weir.core.ha;

import io.weir.core.checkpoint.CompletedCheckpoint;

import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * Keeps the latest completed checkpoints, at most {@code num-retained} (PROTOCOL.md §2, §7).
 * Thread-safe.
 */
public interface CompletedCheckpointStore {
    /**
     * Adds a checkpoint and removes the oldest ones beyond the retention limit.
     *
     * @param checkpoint the new checkpoint, with an id higher than every stored one
     * @param onSubsumed called with each removed checkpoint so its files can be discarded
     * @throws IllegalArgumentException if the id is not higher than the latest stored
     * @throws CheckpointPossiblyStoredException if the checkpoint must not complete here although the store may hold it
     *         (the caller aborts it but keeps its files)
     */
    void addCheckpointAndSubsumeOldest(CompletedCheckpoint checkpoint, Consumer<CompletedCheckpoint> onSubsumed) throws Exception;

    /** @return the newest checkpoint, if any */
    Optional<CompletedCheckpoint> getLatestCheckpoint() throws Exception;

    /** @return all retained checkpoints, oldest first */
    List<CompletedCheckpoint> getAllCheckpoints() throws Exception;

    /** @return the retention limit, ≥ 1 */
    int getMaxNumberOfRetainedCheckpoints();
}
