package io.weir.coordinator;

import io.weir.core.checkpoint.CompletedCheckpoint;
import io.weir.core.storage.CheckpointStorage;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.util.Objects;

/**
 * Discards a checkpoint's storage location (aborted, expired, late-acked or subsumed checkpoints,
 * PROTOCOL.md §2). Never throws: a failure is logged with the job and checkpoint id, since a
 * leftover directory must not disturb checkpointing. Stateless; called on the checkpoint timer
 * thread (also during a restore).
 */
final class CheckpointLocationDiscarder {
    /** The coordinator's category, so log lines and their configuration stay as they were before the split. */
    private static final Logger LOG = LoggerFactory.getLogger(CheckpointCoordinator.class);

    private final String jobName;
    private final CheckpointStorage storage;

    /**
     * @param jobName the job, for log lines
     * @param storage where the locations are
     */
    CheckpointLocationDiscarder(String jobName, CheckpointStorage storage) {
        this.jobName = jobName;
        this.storage = Objects.requireNonNull(storage, "storage");
    }

    /** Discards the location of checkpoint {@code checkpointId}; a failure is logged at warn. */
    void discard(long checkpointId) {
        try {
            storage.discardCheckpoint(checkpointId);
        } catch (IOException | RuntimeException e) {
            LOG.warn("Could not discard checkpoint {} of job {}", checkpointId, jobName, e);
        }
    }

    /** The completed store's subsume callback: discards the location of {@code subsumed}. */
    void discardSubsumed(CompletedCheckpoint subsumed) {
        LOG.debug("Checkpoint {} of job {} subsumed; discarding it", subsumed.checkpointId(), jobName);
        discard(subsumed.checkpointId());
    }
}
