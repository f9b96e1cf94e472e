package io.weir.benchmarks.savepoint;

import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The benchmark's own record of what the {@code datagen} source generated, per key: the ground truth
 * a restored job's counts are checked against, computed without the engine's state.
 *
 * <p>{@link KeyCountTapFactory}'s operator sits chained right after each source subtask and adds one per row
 * to {@code live[subtask][key]}; at every snapshot (checkpoint or savepoint) it stores a copy under the
 * checkpoint id, taken on the task thread exactly at the barrier, so it holds the rows before the cut.
 *
 * <p>Threads: {@link #start} is called by the harness while no job runs; afterwards each
 * {@code live[i]} is written only by the task thread of source subtask {@code i}. Snapshots are published
 * through a concurrent map, so the harness may read them from any thread once stored.
 */
public final class GeneratedCounts {
    private final int keys;
    private final int subtasks;
    /** live[subtask][key]; row i written by source subtask i's task thread only; replaced by {@link #start}. */
    private volatile long[][] live;
    /** First {@code seq} each tap subtask saw in the current job, -1 until then; one writer per slot. */
    private volatile long[] firstSeq;
    /** checkpoint id → per-subtask copies (null until that subtask snapshotted). */
    private final Map<Long, long[][]> snapshots = new ConcurrentHashMap<>();

    /**
     * @param keys distinct keys of the source, 1 to {@link Integer#MAX_VALUE}
     * @param subtasks source parallelism, >= 1
     * @throws IllegalArgumentException if a value is out of range
     */
    public GeneratedCounts(long keys, int subtasks) {
        if (keys < 1 || keys > Integer.MAX_VALUE || subtasks < 1) {
            throw new IllegalArgumentException("keys must be 1.." + Integer.MAX_VALUE + " and subtasks >= 1, got "
                    + keys + " and " + subtasks);
        }
        this.keys = (int) keys;
        this.subtasks = subtasks;
        start(Optional.empty());
    }

    /**
     * Prepares the counts for a new job: zero, or a copy of the snapshot the job restores. Harness only,
     * while no job with a tap runs.
     *
     * @param from the snapshot the job is restored from (its cut), or empty for a fresh job
     */
    public void start(Optional<long[][]> from) {
        long[][] next = new long[subtasks][];
        for (int i = 0; i < subtasks; i++) {
            next[i] = from.isPresent() ? from.get()[i].clone() : new long[keys];
        }
        long[] first = new long[subtasks];
        java.util.Arrays.fill(first, -1);
        firstSeq = first;
        live = next;
    }

    /** Counts one row of source subtask {@code subtask}; its task thread only. */
    void add(int subtask, long key, long seq) {
        long[] first = firstSeq;
        if (first[subtask] < 0) {
            first[subtask] = seq;
        }
        live[subtask][(int) key]++;
    }

    /** Stores a copy of subtask {@code subtask}'s counts under {@code checkpointId}; its task thread only. */
    void snapshot(long checkpointId, int subtask) {
        long[] copy = live[subtask].clone();
        snapshots.compute(checkpointId, (id, all) -> {
            long[][] next = all == null ? new long[subtasks][] : all;
            next[subtask] = copy;
            return next;
        });
    }

    /**
     * @return the counts at checkpoint {@code checkpointId}'s cut, per subtask then key, if every subtask
     *         snapshotted it
     */
    public Optional<long[][]> at(long checkpointId) {
        long[][] all = snapshots.get(checkpointId);
        if (all == null) {
            return Optional.empty();
        }
        for (long[] s : all) {
            if (s == null) {
                return Optional.empty();
            }
        }
        return Optional.of(all);
    }

    /** @return the highest checkpoint id any subtask snapshotted, or -1 */
    public long latestSnapshotId() {
        return snapshots.keySet().stream().mapToLong(Long::longValue).max().orElse(-1);
    }

    /** Forgets every snapshot older than {@code checkpointId} (they are no longer needed). */
    public void forgetBefore(long checkpointId) {
        snapshots.keySet().removeIf(id -> id < checkpointId);
    }

    /** @return the first seq tap subtask {@code subtask} saw in the current job, or -1 */
    public long firstSeq(int subtask) {
        return firstSeq[subtask];
    }

    /** @return keys (array length per subtask) */
    public int keys() {
        return keys;
    }

    /** @return source subtasks */
    public int subtasks() {
        return subtasks;
    }
}
