package io.weir.ha.hazelcast.checkpoint;

import com.hazelcast.map.IMap;
import io.weir.core.checkpoint.CheckpointMetadata;
import io.weir.core.checkpoint.CompletedCheckpoint;
import io.weir.core.ha.CheckpointPossiblyStoredException;
import io.weir.core.ha.CompletedCheckpointStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;

/**
 * A job's completed checkpoints in an {@link IMap} entry (key: the job name; the map has synchronous backups):
 * the retained checkpoints' {@code _metadata} locations and ids, changed only by {@link StoreProcessor}, which
 * refuses writers with an older fencing epoch. So a former owner (a paused "zombie") cannot complete a
 * checkpoint once the new owner claimed the store, and therefore never commits its transactions.
 *
 * <p>Subsumption: the checkpoints the map entry dropped are handed to {@code onSubsumed} (which discards their
 * files) only after the map no longer references them.
 *
 * <p>Thread-safe: the map entry is the state; {@link #loaded} is a concurrent cache of metadata read or added here.
 */
public final class HazelcastCompletedCheckpointStore implements CompletedCheckpointStore {
    private static final Logger LOG = LoggerFactory.getLogger(HazelcastCompletedCheckpointStore.class);

    /** Reads a checkpoint's {@code _metadata} from its pointer. */
    @FunctionalInterface
    public interface MetadataLoader {
        /**
         * @param pointer the checkpoint directory
         * @return its metadata
         * @throws IOException naming the pointer if it cannot be read
         */
        CheckpointMetadata load(String pointer) throws IOException;
    }

    /**
     * Checkpoints the entry keeps beyond {@code maxRetained}: the one to restore from when the newest was added by a run
     * that was stopped meanwhile and whose files its coordinator then discarded (the checkpoint failed, so nothing of
     * it was committed, and restoring from the one before is exactly-once). A later ADD subsumes it as usual.
     */
    static final int SPARE = 1;

    /** Sends of one ADD before its outcome is given up as unknown. */
    static final int ADD_ATTEMPTS = 5;

    private final String jobName;
    private final IMap<String, StoreState> map;
    private final long epoch;
    private final int maxRetained;
    private final MetadataLoader loader;
    /** Whether this node still holds its lease under {@link #epoch} (false once its run was stopped). */
    private final BooleanSupplier leaseHeld;
    /** Checkpoints added here or read back, by id. */
    private final Map<Long, CompletedCheckpoint> loaded = new ConcurrentHashMap<>();

    /**
     * Claims the entry for {@code epoch}: from then on writers with older epochs are refused.
     *
     * @param jobName the job (the map key)
     * @param map the store map
     * @param epoch this owner's fencing epoch, ≥ 1
     * @param maxRetained checkpoints kept, ≥ 1
     * @param loader reads the {@code _metadata} of checkpoints other owners added
     * @throws IllegalArgumentException if {@code epoch} or {@code maxRetained} is below 1
     * @throws FencedWriteException if a newer epoch has written the entry
     */
    public HazelcastCompletedCheckpointStore(String jobName, IMap<String, StoreState> map, long epoch, int maxRetained,
            MetadataLoader loader) {
        this(jobName, map, epoch, maxRetained, loader, () -> true);
    }

    /**
     * Claims the entry for {@code epoch}, and refuses completions once {@code leaseHeld} turns false.
     *
     * <p>Why the local check: the node's watchdog stops a run whose lease it could not renew 1 s before another node may
     * take the job, but stopping (suspending) a run is asynchronous, and a completion already under way, or its ADD
     * applied late, would still complete a checkpoint. Within one cluster view the epoch in the map refuses it once the
     * new owner claimed the store; across a split (a false suspicion under load on one host) it would not: the stopped
     * owner's side completes, subsumes and deletes the checkpoint the other side's new owner restores from (seen in
     * HaFailoverIT: "chk-1104 does not exist", job FAILED). So no ADD is sent after the stop, and an ADD that returns
     * after it does not complete the checkpoint and discards nothing it subsumed.
     *
     * @param leaseHeld whether this node still holds its lease on the job under {@code epoch}; called before and after
     *        every ADD, from the completing thread
     * @throws IllegalArgumentException if {@code epoch} or {@code maxRetained} is below 1
     * @throws FencedWriteException if a newer epoch has written the entry
     */
    public HazelcastCompletedCheckpointStore(String jobName, IMap<String, StoreState> map, long epoch, int maxRetained,
            MetadataLoader loader, BooleanSupplier leaseHeld) {
        if (epoch < 1 || maxRetained < 1) {
            throw new IllegalArgumentException("job " + jobName + ": epoch and num-retained must be >= 1, got " + epoch + ", "
                    + maxRetained);
        }
        this.jobName = jobName;
        this.map = map;
        this.epoch = epoch;
        this.maxRetained = maxRetained;
        this.loader = loader;
        this.leaseHeld = leaseHeld;
        StoreProcessor.Result claimed = map.executeOnKey(jobName, new StoreProcessor(StoreProcessor.Op.CLAIM, epoch, null, 0));
        if (claimed.refused()) {
            throw new FencedWriteException(jobName, "claiming the completed-checkpoint store", epoch, claimed.storedEpoch());
        }
        LOG.info("Job {}: completed-checkpoint store claimed under epoch {} (newest stored checkpoint {})", jobName, epoch,
                claimed.latestId());
    }

    /**
     * {@inheritDoc}
     *
     * @throws FencedWriteException if a newer owner claimed the store, or this node stopped the run (its lease lapsed),
     *         and the store does not hold the checkpoint: it does not complete and nothing it subsumed is discarded
     * @throws CheckpointPossiblyStoredException if the checkpoint must not complete here (the lease lapsed, or the ADD's
     *         outcome stayed unknown) but the store may hold it, so a newer owner may restore from it: its files must stay
     */
    @Override
    public void addCheckpointAndSubsumeOldest(CompletedCheckpoint checkpoint, Consumer<CompletedCheckpoint> onSubsumed) {
        StoredCheckpoint stored = new StoredCheckpoint(checkpoint.checkpointId(), checkpoint.externalPointer(),
                checkpoint.triggerTimestamp(), checkpoint.completionTimestamp());
        StoreProcessor.Result result = addResolvingUnknownOutcome(stored);
        if (result.refused()) {
            throw new FencedWriteException(jobName, "completing checkpoint " + checkpoint.checkpointId(), epoch, result.storedEpoch());
        }
        if (!leaseHeld.getAsBoolean() && !result.notNewer()) {
            // applied, but the run was stopped meanwhile (or this process was paused past its lease between sending and
            // reading the answer): the checkpoint must not complete here (no 2PC commit). If the entry can be put back,
            // nobody restores from it and the caller may discard its files; if not, a newer owner claimed the store with
            // this checkpoint in it and may restore from it, so its files must stay
            if (retract(stored, result.subsumed())) {
                throw new FencedWriteException(jobName, "completing checkpoint " + checkpoint.checkpointId()
                        + " (its ADD applied after the run was stopped)", epoch);
            }
            throw new CheckpointPossiblyStoredException("job " + jobName + ": checkpoint " + checkpoint.checkpointId()
                    + " reached the completed store under epoch " + epoch + ", but this node's lease lapsed before the answer"
                    + " came and the store has moved on (a newer owner may restore from it): it does not complete here and"
                    + " its files are kept", null);
        }
        if (result.notNewer()) {
            throw new IllegalArgumentException("job " + jobName + ": checkpoint " + checkpoint.checkpointId()
                    + " is not newer than the latest stored checkpoint " + result.latestId());
        }
        loaded.put(checkpoint.checkpointId(), checkpoint);
        for (StoredCheckpoint old : result.subsumed()) {
            Optional<CompletedCheckpoint> full = resolve(old);
            loaded.remove(old.checkpointId());
            if (full.isEmpty()) {
                continue;
            }
            try {
                onSubsumed.accept(full.get());
            } catch (RuntimeException e) {
                LOG.warn("Discarding subsumed checkpoint {} of job {} failed", old.checkpointId(), jobName, e);
            }
        }
    }

    /**
     * Sends the ADD; if the call fails without an answer (a timeout, the member holding the primary copy gone), the
     * write may or may not have happened, and the caller discards the checkpoint's files on failure: so the ADD is
     * sent again (up to {@value #ADD_ATTEMPTS} times in all). A repeated ADD of a checkpoint the entry already holds
     * as its newest counts as done (what it subsumed the first time is then not discarded here: logged).
     */
    private StoreProcessor.Result addResolvingUnknownOutcome(StoredCheckpoint stored) {
        RuntimeException last = null;
        for (int attempt = 1; attempt <= ADD_ATTEMPTS; attempt++) {
            if (!leaseHeld.getAsBoolean()) {
                if (attempt == 1) {
                    throw new FencedWriteException(jobName, "completing checkpoint " + stored.checkpointId(), epoch);
                }
                // an earlier attempt may have been applied before a newer owner claimed the store
                throw new CheckpointPossiblyStoredException("job " + jobName + ": checkpoint " + stored.checkpointId()
                        + " may be in the completed store (an ADD under epoch " + epoch + " failed without an answer), and this"
                        + " node's lease lapsed meanwhile: it does not complete here and its files are kept", last);
            }
            try {
                StoreProcessor.Result r = map.executeOnKey(jobName, new StoreProcessor(StoreProcessor.Op.ADD, epoch, stored,
                        maxRetained + SPARE));
                if (attempt > 1 && r.notNewer() && r.latestId() == stored.checkpointId()) {
                    LOG.warn("Job {}: checkpoint {} was added to the completed store by an earlier attempt whose answer was lost;"
                            + " checkpoints it subsumed then keep their files until the job's next restore", jobName,
                            stored.checkpointId());
                    return new StoreProcessor.Result(false, false, r.storedEpoch(), r.latestId(), List.of());
                }
                return r;
            } catch (FencedWriteException e) {
                throw e;
            } catch (RuntimeException e) {
                last = e;
                LOG.warn("Job {}: adding checkpoint {} to the completed store failed without an answer (attempt {} of {}): {}",
                        jobName, stored.checkpointId(), attempt, ADD_ATTEMPTS, e.toString());
            }
        }
        throw new CheckpointPossiblyStoredException("job " + jobName + ": checkpoint " + stored.checkpointId() + " could not be"
                + " added to the completed store in " + ADD_ATTEMPTS + " attempts; its outcome is unknown, so it does not complete"
                + " and its files are kept", last);
    }

    /** @return whether the entry was put back as before {@code added} (false: the store moved on, or the call failed) */
    private boolean retract(StoredCheckpoint added, List<StoredCheckpoint> subsumed) {
        try {
            boolean undone = map.executeOnKey(jobName, new StoreRetraction(epoch, added.checkpointId(), subsumed));
            LOG.warn("Job {}: checkpoint {} reached the completed store after this node stopped its run under epoch {}; {}", jobName,
                    added.checkpointId(), epoch, undone ? "taken out again" : "the store has moved on (nothing to take out)");
            return undone;
        } catch (RuntimeException e) {
            LOG.warn("Job {}: checkpoint {} reached the completed store after this node stopped its run under epoch {}, and taking"
                    + " it out failed: {}", jobName, added.checkpointId(), epoch, e.toString());
            return false;
        }
    }

    /**
     * {@inheritDoc}
     *
     * @throws IOException naming the pointer if the newest stored checkpoint's {@code _metadata} cannot be read
     */
    @Override
    public Optional<CompletedCheckpoint> getLatestCheckpoint() throws IOException {
        StoreState state = map.get(jobName);
        if (state == null || state.checkpoints().isEmpty()) {
            return Optional.empty();
        }
        List<StoredCheckpoint> stored = state.checkpoints();
        for (int i = stored.size() - 1; i > 0; i--) {
            Optional<CompletedCheckpoint> loaded = resolve(stored.get(i));
            if (loaded.isPresent()) {
                return loaded;
            }
            // its files are gone: only a checkpoint that failed (never committed) after its ADD applied loses them
            LOG.warn("Job {}: restoring from checkpoint {} instead of {}, whose files are gone (added by a run stopped while"
                    + " completing it)", jobName, stored.get(i - 1).checkpointId(), stored.get(i).checkpointId());
        }
        return Optional.of(load(stored.get(0)));
    }

    /** {@inheritDoc} <p>Checkpoints whose {@code _metadata} cannot be read are left out (logged at warn). */
    @Override
    public List<CompletedCheckpoint> getAllCheckpoints() {
        StoreState state = map.get(jobName);
        List<CompletedCheckpoint> all = new ArrayList<>();
        if (state != null) {
            state.checkpoints().forEach(s -> resolve(s).ifPresent(all::add));
        }
        return all;
    }

    @Override
    public int getMaxNumberOfRetainedCheckpoints() {
        return maxRetained;
    }

    private Optional<CompletedCheckpoint> resolve(StoredCheckpoint stored) {
        try {
            return Optional.of(load(stored));
        } catch (IOException e) {
            LOG.warn("Job {}: checkpoint {} in the completed store cannot be read ({}); its files are left alone", jobName,
                    stored.checkpointId(), e.getMessage());
            return Optional.empty();
        }
    }

    private CompletedCheckpoint load(StoredCheckpoint stored) throws IOException {
        CompletedCheckpoint cached = loaded.get(stored.checkpointId());
        if (cached != null && cached.externalPointer().equals(stored.externalPointer())) {
            return cached;
        }
        CheckpointMetadata metadata = loader.load(stored.externalPointer());
        CompletedCheckpoint full = new CompletedCheckpoint(stored.checkpointId(), stored.triggerTimestamp(),
                stored.completionTimestamp(), stored.externalPointer(), metadata);
        loaded.put(stored.checkpointId(), full);
        return full;
    }

    /**
     * Removes the job's store entry (a globally terminal job). Idempotent.
     *
     * @param map the store map
     * @param jobName the job
     * @param epoch the remover's epoch
     * @throws FencedWriteException if a newer epoch wrote the entry
     */
    public static void remove(IMap<String, StoreState> map, String jobName, long epoch) {
        StoreProcessor.Result result = map.executeOnKey(jobName, new StoreProcessor(StoreProcessor.Op.REMOVE, epoch, null, 0));
        if (result.refused()) {
            throw new FencedWriteException(jobName, "removing the completed-checkpoint store", epoch, result.storedEpoch());
        }
    }
}
