package io.weir.ha.hazelcast.checkpoint;

import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.map.IMap;
import io.weir.core.ha.CheckpointIDCounter;
import io.weir.core.ha.CheckpointRecoveryFactory;
import io.weir.core.ha.CompletedCheckpointStore;
import io.weir.core.storage.CheckpointStorage;

import java.util.Objects;
import java.util.function.Supplier;

/**
 * Creates fenced ({@code "hazelcast"}) id counters and completed stores in the cluster's maps
 * {@value #COUNTER_MAP} and {@value #STORE_MAP}, under the epoch of this node's lease on the job
 * ({@link JobEpochs}). A new counter starts above {@code max(counter, newest id in the store, highest chk-<id> on
 * storage)}. Runs are fenced by epoch, so the storage's run lock is not taken ({@link #fencesRuns()}).
 * Thread-safe.
 */
public final class HazelcastCheckpointRecoveryFactory implements CheckpointRecoveryFactory {
    /** The counter map: job name → {@link CounterState}. */
    public static final String COUNTER_MAP = "weir.checkpoint-ids";
    /** The completed-store map: job name → {@link StoreState}. */
    public static final String STORE_MAP = "weir.completed-checkpoints";

    private final Supplier<HazelcastInstance> member;
    private final JobEpochs epochs;

    /**
     * @param member the running member (may block until it has joined)
     * @param epochs this node's lease epochs
     */
    public HazelcastCheckpointRecoveryFactory(Supplier<HazelcastInstance> member, JobEpochs epochs) {
        this.member = Objects.requireNonNull(member, "member");
        this.epochs = Objects.requireNonNull(epochs, "epochs");
    }

    @Override
    public String type() {
        return "hazelcast";
    }

    /** @throws IllegalStateException if this node holds no lease on the job; {@link FencedWriteException} if a newer owner wrote */
    @Override
    public CheckpointIDCounter createCheckpointIDCounter(String jobName) {
        return counter(jobName, 0);
    }

    /**
     * @throws IllegalStateException if this node holds no lease on the job; {@link FencedWriteException} if a newer owner wrote
     * @throws java.io.IOException if the storage's checkpoint directories cannot be listed
     */
    @Override
    public CheckpointIDCounter createCheckpointIDCounter(String jobName, CheckpointStorage storage) throws Exception {
        return counter(jobName, storage.highestCheckpointId());
    }

    private CheckpointIDCounter counter(String jobName, long highestOnStorage) {
        long epoch = epochs.epochOf(jobName);
        StoreState store = storeMap().get(jobName);
        long highest = Math.max(highestOnStorage, store == null ? 0 : store.latestId());
        return new HazelcastCheckpointIDCounter(jobName, counterMap(), epoch, highest + 1);
    }

    /**
     * Without a storage the store cannot read other owners' {@code _metadata}: refused.
     *
     * @throws UnsupportedOperationException always
     */
    @Override
    public CompletedCheckpointStore createCompletedCheckpointStore(String jobName, int maxRetained) {
        throw new UnsupportedOperationException("job " + jobName + ": the hazelcast completed-checkpoint store needs the job's"
                + " checkpoint storage to read checkpoints other nodes completed");
    }

    /** @throws IllegalStateException if this node holds no lease on the job; {@link FencedWriteException} if a newer owner wrote */
    @Override
    public CompletedCheckpointStore createCompletedCheckpointStore(String jobName, int maxRetained, CheckpointStorage storage) {
        long epoch = epochs.epochOf(jobName);
        return new HazelcastCompletedCheckpointStore(jobName, storeMap(), epoch, maxRetained, storage::loadCheckpoint,
                () -> epochs.holds(jobName, epoch));
    }

    /** @return true: every counter and store write carries the owner's epoch */
    @Override
    public boolean fencesRuns() {
        return true;
    }

    /**
     * Removes the job's counter and store entries: call only once the job reached a globally terminal state.
     * Idempotent.
     *
     * @param jobName the job
     * @param epoch the epoch of the terminal job in the job store
     * @throws FencedWriteException if a newer epoch wrote either entry
     */
    public void removeJob(String jobName, long epoch) {
        HazelcastCheckpointIDCounter.remove(counterMap(), jobName, epoch);
        HazelcastCompletedCheckpointStore.remove(storeMap(), jobName, epoch);
    }

    private IMap<String, CounterState> counterMap() {
        return member.get().getMap(COUNTER_MAP);
    }

    private IMap<String, StoreState> storeMap() {
        return member.get().getMap(STORE_MAP);
    }
}
