package io.weir.coordinator;

import io.weir.core.checkpoint.CompletedCheckpoint;
import io.weir.core.checkpoint.StreamStateHandle;
import io.weir.core.ha.CompletedCheckpointStore;
import io.weir.core.storage.CheckpointStorage;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.util.List;
import java.util.Objects;

/**
 * Discards a checkpoint's storage location (aborted, expired, late-acked or subsumed checkpoints,
 * PROTOCOL.md §2), and the shared files of incremental checkpoints through the {@link SharedStateRegistry}:
 * a completed checkpoint's shared files are counted before it enters the completed store
 * ({@link #addToStore}); when the store subsumes it, the files no retained checkpoint refers to any more
 * are deleted, never one still referred to; an aborted checkpoint's own shared files are deleted unless a
 * retained checkpoint refers to them. Discarding never throws: a failure is logged with the job and
 * checkpoint id, since a leftover file must not disturb checkpointing. Called on the checkpoint timer
 * thread only (also during a restore), which confines the registry.
 */
final class CheckpointLocationDiscarder {
    /** The coordinator's category, so log lines and their configuration stay as they were before the split. */
    private static final Logger LOG = LoggerFactory.getLogger(CheckpointCoordinator.class);

    private final String jobName;
    private final CheckpointStorage storage;
    // Timer thread only.
    private final SharedStateRegistry registry = new SharedStateRegistry();

    /**
     * @param jobName the job, for log lines
     * @param storage where the locations are
     */
    CheckpointLocationDiscarder(String jobName, CheckpointStorage storage) {
        this.jobName = jobName;
        this.storage = Objects.requireNonNull(storage, "storage");
    }

    /**
     * Discards the location of checkpoint {@code checkpointId} (not completed, or refused by the store) and the
     * shared files it wrote that no retained checkpoint refers to; a failure is logged at warn.
     */
    void discard(long checkpointId) {
        try {
            storage.discardCheckpoint(checkpointId);
        } catch (IOException | RuntimeException e) {
            LOG.warn("Could not discard checkpoint {} of job {}", checkpointId, jobName, e);
        }
        try {
            storage.discardSharedStateOf(checkpointId, registry.referenced());
        } catch (IOException | RuntimeException e) {
            LOG.warn("Could not discard the shared state of checkpoint {} of job {}", checkpointId, jobName, e);
        }
    }

    /**
     * Registers {@code checkpoint}'s shared files, then adds it to {@code store}, whose subsumed checkpoints
     * come to {@link #discardSubsumed}. If the store refuses it, the registration is undone (the caller aborts
     * the checkpoint, which discards its files).
     *
     * @throws Exception what the store throws
     */
    void addToStore(CompletedCheckpointStore store, CompletedCheckpoint checkpoint) throws Exception {
        registry.register(checkpoint.metadata());
        try {
            store.addCheckpointAndSubsumeOldest(checkpoint, this::discardSubsumed);
        } catch (Exception e) {
            registry.unregister(checkpoint.metadata());
            throw e;
        }
    }

    /**
     * The completed store's subsume callback: discards the location of {@code subsumed} and the shared files
     * no retained checkpoint refers to any more.
     */
    void discardSubsumed(CompletedCheckpoint subsumed) {
        LOG.debug("Checkpoint {} of job {} subsumed; discarding it", subsumed.checkpointId(), jobName);
        List<StreamStateHandle> unreferenced;
        try {
            unreferenced = registry.unregister(subsumed.metadata());
        } catch (IllegalStateException e) {
            // never registered here: its shared files are unknown, so none is deleted (a later restore collects them)
            LOG.warn("Subsumed checkpoint {} of job {}: {}; its shared files are kept", subsumed.checkpointId(), jobName,
                    e.getMessage());
            unreferenced = List.of();
        }
        try {
            storage.discardCheckpoint(subsumed.checkpointId());
        } catch (IOException | RuntimeException e) {
            LOG.warn("Could not discard checkpoint {} of job {}", subsumed.checkpointId(), jobName, e);
        }
        for (StreamStateHandle file : unreferenced) {
            try {
                storage.discardSharedFile(file);
            } catch (IOException | RuntimeException e) {
                LOG.warn("Could not delete shared file {} of job {} (no retained checkpoint refers to it)", file, jobName, e);
            }
        }
    }

    /**
     * Registers the retained checkpoints this registry does not know yet: those of a completed store that outlived
     * the process that filled them (an HA store after a failover, restored from by a new coordinator). Without it
     * their files would never be counted: when subsumed, their files would be kept forever, and a file they share
     * with a later checkpoint would be deleted while they still refer to it. If any was registered, the shared
     * files none of the retained checkpoints refers to (what the previous process left) are deleted too.
     *
     * @param retained the store's checkpoints, oldest first
     * @return how many were registered now
     */
    int registerRetained(List<CompletedCheckpoint> retained) {
        int added = 0;
        for (CompletedCheckpoint cp : retained) {
            if (!registry.isRegistered(cp.checkpointId())) {
                registry.register(cp.metadata());
                added++;
            }
        }
        if (added > 0) {
            LOG.info("Registered {} retained checkpoint(s) of job {} from its completed store with the shared state registry",
                    added, jobName);
            discardUnreferencedSharedState();
        }
        return added;
    }

    /**
     * Deletes the shared files no registered (retained) checkpoint refers to: what a killed run left. Called
     * once the retained checkpoints of a resumed job are registered.
     */
    void discardUnreferencedSharedState() {
        try {
            storage.discardUnreferencedSharedState(registry.referenced());
        } catch (IOException | RuntimeException e) {
            LOG.warn("Could not remove unreferenced shared state of job {}", jobName, e);
        }
    }

    /** @return the registry (tests) */
    SharedStateRegistry registry() {
        return registry;
    }
}
