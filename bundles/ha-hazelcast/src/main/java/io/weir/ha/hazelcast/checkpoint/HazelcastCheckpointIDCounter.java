package io.weir.ha.hazelcast.checkpoint;

import com.hazelcast.map.IMap;
import io.weir.core.ha.CheckpointIDCounter;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A job's checkpoint id counter in an {@link IMap} entry (key: the job name), changed only by
 * {@link CounterProcessor}: it keeps the maximum and refuses writers with an older fencing epoch, so ids
 * strictly increase across owners and a former owner cannot draw ids once the new one has written.
 *
 * <p>Lost updates: a map write is acknowledged by the primary copy; if the primary dies before its
 * synchronous backup applied the write, the promoted backup misses it (Hazelcast without the CP subsystem is
 * not linearizable). This counter therefore remembers the last id it handed out and, should the map return
 * that id or a lower one again, raises the entry above it and draws again: within one owner ids never repeat.
 * Across owners the new owner starts above {@code max(counter, completed store, chk-<id> on storage)}
 * ({@link HazelcastCheckpointRecoveryFactory}).
 *
 * <p>Thread-safe: {@link #lastIssued} is guarded by {@code this}.
 */
public final class HazelcastCheckpointIDCounter implements CheckpointIDCounter {
    private static final Logger LOG = LoggerFactory.getLogger(HazelcastCheckpointIDCounter.class);

    private final String jobName;
    private final IMap<String, CounterState> map;
    private final long epoch;
    /** The highest id this counter handed out, 0 before the first. Guarded by {@code this}. */
    private long lastIssued;

    /**
     * Stamps the entry with {@code epoch} and raises it to at least {@code floor}.
     *
     * @param jobName the job (the map key)
     * @param map the counter map
     * @param epoch this owner's fencing epoch, ≥ 1
     * @param floor the least next id: one above every id the job is known to have used, ≥ 1
     * @throws FencedWriteException if a newer epoch has written the entry
     * @throws IllegalArgumentException if {@code epoch} or {@code floor} is below 1
     */
    public HazelcastCheckpointIDCounter(String jobName, IMap<String, CounterState> map, long epoch, long floor) {
        if (epoch < 1 || floor < 1) {
            throw new IllegalArgumentException("job " + jobName + ": epoch and floor must be >= 1, got " + epoch + ", " + floor);
        }
        this.jobName = jobName;
        this.map = map;
        this.epoch = epoch;
        long next = write(CounterProcessor.Op.RAISE, floor, "claiming the checkpoint id counter").value();
        LOG.info("Job {}: checkpoint id counter at {} under epoch {}", jobName, next, epoch);
    }

    /** @throws FencedWriteException if a newer owner has written the counter */
    @Override
    public synchronized long getAndIncrement() {
        long id = write(CounterProcessor.Op.INCREMENT, 0, "drawing a checkpoint id").value();
        if (id <= lastIssued) {
            LOG.warn("Job {}: the counter map handed out checkpoint id {} again (last issued {}; a write was lost with its"
                    + " primary copy); raising it above", jobName, id, lastIssued);
            write(CounterProcessor.Op.RAISE, lastIssued + 1, "raising the checkpoint id counter");
            id = write(CounterProcessor.Op.INCREMENT, 0, "drawing a checkpoint id").value();
        }
        lastIssued = id;
        return id;
    }

    @Override
    public synchronized long get() {
        CounterState state = map.get(jobName);
        return Math.max(state == null ? 1 : state.next(), lastIssued + 1);
    }

    /**
     * Raises the counter to {@code next}; never lowers it (a lower value could hand out an id another owner used).
     *
     * @throws IllegalArgumentException if {@code next} is below 1
     * @throws FencedWriteException if a newer owner has written the counter
     */
    @Override
    public void setCount(long next) {
        if (next < 1) {
            throw new IllegalArgumentException("job " + jobName + ": next checkpoint id must be >= 1, got " + next);
        }
        write(CounterProcessor.Op.RAISE, next, "raising the checkpoint id counter to " + next);
    }

    private CounterProcessor.Result write(CounterProcessor.Op op, long value, String what) {
        CounterProcessor.Result result = map.executeOnKey(jobName, new CounterProcessor(op, epoch, value));
        if (result.refused()) {
            throw new FencedWriteException(jobName, what, epoch, result.storedEpoch());
        }
        return result;
    }

    /**
     * Removes the job's counter: only when the job reached a globally terminal state (finished, cancelled, failed
     * for good); removing it earlier would let ids restart at 1. Idempotent.
     *
     * @param map the counter map
     * @param jobName the job
     * @param epoch the remover's epoch (the job store's epoch of the terminal job)
     * @throws FencedWriteException if a newer epoch wrote the counter (the job runs again under a newer owner)
     */
    public static void remove(IMap<String, CounterState> map, String jobName, long epoch) {
        CounterProcessor.Result result = map.executeOnKey(jobName, new CounterProcessor(CounterProcessor.Op.REMOVE, epoch, 0));
        if (result.refused()) {
            throw new FencedWriteException(jobName, "removing the checkpoint id counter", epoch, result.storedEpoch());
        }
    }
}
