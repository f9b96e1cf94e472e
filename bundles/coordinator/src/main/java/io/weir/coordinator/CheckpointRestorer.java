package io.weir.coordinator;

import io.weir.core.checkpoint.CheckpointMetadata;
import io.weir.core.checkpoint.CompletedCheckpoint;
import io.weir.core.checkpoint.MasterState;
import io.weir.core.coordination.MasterHook;
import io.weir.core.ha.CheckpointIDCounter;
import io.weir.core.ha.CompletedCheckpointStore;
import io.weir.core.storage.CheckpointStorage;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * Finds the checkpoint a job restores from (PROTOCOL.md §2, §7): on the first restore, a savepoint the user
 * named ({@link InitialRestore}); else the completed store first, else the storage's newest complete
 * {@code _metadata} (then added to the store), or the newest savepoint of this run if that is newer. Moves the
 * id counter past the restored id so new checkpoints never reuse it, and hands each master hook its stored
 * state. Runs on the checkpoint timer thread (through {@link CheckpointCoordinator#restoreLatestCheckpoint}),
 * after pending checkpoints are aborted; its two mutable fields are confined to that thread.
 */
final class CheckpointRestorer {
    /** The coordinator's category, so log lines and their configuration stay as they were before the split. */
    private static final Logger LOG = LoggerFactory.getLogger(CheckpointCoordinator.class);

    private final String jobName;
    private final CompletedCheckpointStore store;
    private final CheckpointStorage storage;
    private final CheckpointIDCounter idCounter;
    private final CheckpointLocationDiscarder discarder;
    private final List<MasterHook> masterHooks;
    /** Timer thread only: the user's savepoint for the first restore; null once used (or if none was named). */
    private InitialRestore initialRestore;
    /** Timer thread only: the newest savepoint completed or restored in this run, or null. */
    private CompletedCheckpoint latestSavepoint;

    /**
     * @param jobName the job, for messages
     * @param store completed checkpoints, read first
     * @param storage scanned for {@code _metadata} when the store is empty
     * @param idCounter set to the restored id + 1 if lower
     * @param discarder discards what the store subsumes when the storage's checkpoint is added
     * @param masterHooks the job's master hooks, restored from the checkpoint's master states
     * @param initialRestore the savepoint the first restore uses, or null to use the job's own checkpoints
     */
    CheckpointRestorer(String jobName, CompletedCheckpointStore store, CheckpointStorage storage,
            CheckpointIDCounter idCounter, CheckpointLocationDiscarder discarder, List<MasterHook> masterHooks,
            InitialRestore initialRestore) {
        this.jobName = jobName;
        this.store = Objects.requireNonNull(store, "store");
        this.storage = Objects.requireNonNull(storage, "storage");
        this.idCounter = Objects.requireNonNull(idCounter, "idCounter");
        this.discarder = Objects.requireNonNull(discarder, "discarder");
        this.masterHooks = List.copyOf(masterHooks);
        this.initialRestore = initialRestore;
    }

    /** The pre-savepoint constructor: restores from the job's own checkpoints only. */
    CheckpointRestorer(String jobName, CompletedCheckpointStore store, CheckpointStorage storage,
            CheckpointIDCounter idCounter, CheckpointLocationDiscarder discarder, List<MasterHook> masterHooks) {
        this(jobName, store, storage, idCounter, discarder, masterHooks, null);
    }

    /**
     * A savepoint of this run completed (it is not in the store): a later restore uses it unless a newer
     * checkpoint completed meanwhile, since its completion may have committed output.
     */
    void savepointCompleted(CompletedCheckpoint savepoint) {
        if (latestSavepoint == null || savepoint.checkpointId() > latestSavepoint.checkpointId()) {
            latestSavepoint = savepoint;
        }
    }

    /**
     * @return the checkpoint to restore from, empty if neither the store nor the storage has one
     * @throws IOException naming the job and pointer if the storage's {@code _metadata} cannot be read
     * @throws IllegalStateException naming the hook if the checkpoint holds state of a master hook the
     *         job does not have (restoring would silently drop it); on the first restore from a user's
     *         savepoint, if the job's checkpoint directory already holds a completed checkpoint (ambiguous), or
     *         the savepoint holds state of operators the job lacks (see {@link InitialRestore#checkOperators})
     * @throws IOException naming the path if the user's savepoint has no readable {@code _metadata}
     * @throws Exception if the store, the storage scan, the id counter or a hook's restore fails
     */
    Optional<CompletedCheckpoint> restoreLatest() throws Exception {
        Optional<CompletedCheckpoint> latest;
        if (initialRestore != null && initialRestore.resumeOwnCheckpoints()) {
            Optional<String> own = ownCheckpoint();
            if (own.isPresent()) {
                LOG.info("Job {} resumes from its own checkpoint {}, not from savepoint {} it was started from", jobName,
                        own.get(), initialRestore.pointer());
                initialRestore = null;
            }
        }
        if (initialRestore != null) {
            latest = Optional.of(loadInitialSavepoint(initialRestore));
            initialRestore = null;
            latestSavepoint = latest.get();
        } else {
            // a store that outlived the coordinator which filled it (HA failover): count its checkpoints' files
            discarder.registerRetained(store.getAllCheckpoints());
            latest = store.getLatestCheckpoint();
            if (latest.isEmpty()) {
                latest = loadLatestFromStorage();
            }
            if (latestSavepoint != null && (latest.isEmpty() || latestSavepoint.checkpointId() > latest.get().checkpointId())) {
                latest = Optional.of(latestSavepoint);
            }
        }
        if (latest.isEmpty()) {
            LOG.info("No completed checkpoint to restore job {} from", jobName);
            return latest;
        }
        long id = latest.get().checkpointId();
        if (idCounter.get() <= id) {
            idCounter.setCount(id + 1);
        }
        LOG.info("Restoring job {} from checkpoint {} at {}", jobName, id, latest.get().externalPointer());
        restoreMasterHooks(latest.get());
        return latest;
    }

    private void restoreMasterHooks(CompletedCheckpoint checkpoint) throws Exception {
        Map<String, byte[]> states = new HashMap<>();
        for (MasterState m : checkpoint.metadata().masterStates()) {
            states.put(m.hookId(), m.bytes());
        }
        Set<String> unknown = new TreeSet<>(states.keySet());
        masterHooks.forEach(hook -> unknown.remove(hook.id()));
        if (!unknown.isEmpty()) {
            throw new IllegalStateException("checkpoint " + checkpoint.checkpointId() + " of job " + jobName
                    + " holds state of master hook(s) " + unknown + " that the job does not have; restoring would drop"
                    + " that state (run the job with those hooks, or start it without the checkpoint)");
        }
        for (MasterHook hook : masterHooks) {
            try {
                hook.restoreCheckpoint(checkpoint.checkpointId(), states.get(hook.id()));
            } catch (Exception e) {
                throw new IllegalStateException("master hook '" + hook.id() + "' of job " + jobName
                        + " cannot restore checkpoint " + checkpoint.checkpointId() + ": " + e.getMessage(), e);
            }
        }
    }

    /**
     * @return the storage's newest complete checkpoint; it and up to {@code num-retained − 1} older ones are
     *         added to the store, oldest first, so that they are subsumed (and discarded) in order later.
     *         Empty if there is none
     */
    private Optional<CompletedCheckpoint> loadLatestFromStorage() throws Exception {
        List<String> pointers = storage.findRetainedCheckpoints(store.getMaxNumberOfRetainedCheckpoints());
        Optional<CheckpointStorage.RecordedSavepoint> recorded = storage.latestRecordedSavepoint();
        Optional<CompletedCheckpoint> checkpoint = pointers.isEmpty() ? Optional.empty() : Optional.of(loadRetained(pointers));
        if (recorded.isPresent() && (checkpoint.isEmpty() || recorded.get().checkpointId() > checkpoint.get().checkpointId())) {
            latestSavepoint = loadRecordedSavepoint(recorded.get(), checkpoint);
            return Optional.of(latestSavepoint);
        }
        return checkpoint;
    }

    /**
     * A savepoint completed after the newest checkpoint (its output may be committed), so the job resumes from it;
     * if it cannot be read (moved, deleted, damaged), the restore is refused rather than falling back.
     */
    private CompletedCheckpoint loadRecordedSavepoint(CheckpointStorage.RecordedSavepoint recorded,
            Optional<CompletedCheckpoint> older) throws IOException {
        CheckpointMetadata metadata;
        try {
            metadata = storage.loadCheckpointForRestore(recorded.pointer());
        } catch (IOException e) {
            throw new IOException("job " + jobName + " took savepoint " + recorded.checkpointId() + " at " + recorded.pointer()
                    + " after its newest checkpoint" + older.map(c -> " " + c.checkpointId()).orElse("") + ", and its sinks may"
                    + " have committed it, but it cannot be restored: " + e.getMessage() + ". Put the savepoint back, or"
                    + " delete the job's checkpoint directory and run with --from-savepoint at its new place", e);
        }
        LOG.info("Job {} resumes from savepoint {} at {}, taken after its newest checkpoint", jobName, recorded.checkpointId(),
                recorded.pointer());
        return new CompletedCheckpoint(metadata.checkpointId(), metadata.timestamp(), metadata.timestamp(), recorded.pointer(),
                metadata);
    }

    /** Adds the retained checkpoints to the store, oldest first; returns the newest. */
    private CompletedCheckpoint loadRetained(List<String> pointers) throws Exception {
        for (int i = pointers.size() - 1; i >= 1; i--) {
            try {
                discarder.addToStore(store, load(pointers.get(i)));
            } catch (IOException e) {
                LOG.warn("Older checkpoint {} of job {} is not kept as retained: {}", pointers.get(i), jobName, e.getMessage());
            }
        }
        CompletedCheckpoint latest = load(pointers.get(0));
        discarder.addToStore(store, latest);
        // what a killed run left beyond the retained ones (older complete ones, incomplete ones) would stay forever
        Set<Long> keep = new java.util.HashSet<>();
        store.getAllCheckpoints().forEach(cp -> keep.add(cp.checkpointId()));
        storage.discardAllExcept(keep);
        // likewise shared files of incremental checkpoints that no retained checkpoint refers to
        discarder.discardUnreferencedSharedState();
        return latest;
    }

    /** @return the job's own newest checkpoint or recorded savepoint (for messages), empty if it has none */
    private Optional<String> ownCheckpoint() throws Exception {
        Optional<String> own = store.getLatestCheckpoint().map(CompletedCheckpoint::externalPointer);
        if (own.isEmpty()) {
            own = storage.findLatestCompletedCheckpoint();
        }
        if (own.isEmpty()) {
            own = storage.latestRecordedSavepoint().map(r -> "(savepoint " + r.checkpointId() + ") " + r.pointer());
        }
        return own;
    }

    private CompletedCheckpoint loadInitialSavepoint(InitialRestore restore) throws Exception {
        Optional<String> own = ownCheckpoint();
        if (own.isPresent()) {
            throw new IllegalStateException("job " + jobName + " is to restore from savepoint " + restore.pointer()
                    + ", but its checkpoint directory already holds checkpoint " + own.get() + " of an earlier run; which one"
                    + " to resume from is ambiguous: delete the job's checkpoints to start from the savepoint, or drop"
                    + " --from-savepoint to resume from them");
        }
        CheckpointMetadata metadata;
        try {
            metadata = storage.loadCheckpointForRestore(restore.pointer());
        } catch (IOException e) {
            throw new IOException("cannot restore job " + jobName + " from savepoint " + restore.pointer() + ": "
                    + e.getMessage(), e);
        }
        restore.checkOperators(jobName, metadata);
        LOG.info("Job {} starts from savepoint {} (checkpoint id {}, taken by job {})", jobName, restore.pointer(),
                metadata.checkpointId(), metadata.jobName());
        return new CompletedCheckpoint(metadata.checkpointId(), metadata.timestamp(), metadata.timestamp(),
                restore.pointer(), metadata);
    }

    private CompletedCheckpoint load(String pointer) throws IOException {
        CheckpointMetadata metadata;
        try {
            metadata = storage.loadCheckpoint(pointer);
        } catch (IOException e) {
            throw new IOException("cannot restore job " + jobName + " from " + pointer, e);
        }
        return new CompletedCheckpoint(metadata.checkpointId(), metadata.timestamp(), metadata.timestamp(), pointer, metadata);
    }
}
