package io.weir.runtime.tasks;

import io.weir.api.Row;
import io.weir.api.operator.Output;
import io.weir.api.operator.StreamOperator;
import io.weir.core.state.KeyedStateBackend;
import io.weir.runtime.io.network.KeySelector;
import io.weir.runtime.operators.DefaultOperatorContext;

/**
 * An operator in a task's chain with what the runtime adds around it: the keyed-state scope per
 * record and, for tests, an injected failure. Task thread only.
 */
final class ChainedOperator {
    final String operatorId;
    final StreamOperator operator;
    final DefaultOperatorContext context;
    private final KeySelector keySelector;
    private final int maxParallelism;
    /** Records before the injected failure; 0: no failure is injected into this operator. */
    private final long failAfterRecords;
    /** Completed checkpoints the operator must have been notified of before the injected failure. */
    private final int failAfterCheckpoints;
    /** Pause per record while an injected failure waits for its completed checkpoints, ms. */
    static final long PACE_MS = 1;
    /** Set once while the chain is built. */
    Output output;
    /** The operator's timers (keyed operators only), else null; set once while the chain is built. */
    io.weir.runtime.time.KeyedTimerService timers;
    /** Slots of {@link #recentKeys}: a power of two. */
    static final int RECENT_KEYS = 256;
    /**
     * Misses in a row after which a slot of {@link #recentKeys} takes the missing key, when the backend accepts
     * reused key rows (below that, a miss builds no row).
     */
    static final int REPLACE_AFTER_MISSES = 16;
    /**
     * Task thread only (keyed operators, else null): the key rows of recent records, each in the slot its hash picks,
     * and their key groups in {@link #recentKeyGroups}. A record whose key equals the slot's reuses that row and key
     * group: no key row is built and no key group computed. Key rows are immutable and compared by value, so a
     * reused row is the key the record would have got. In {@code throughput-16} (16 keys) every record after the
     * first of its key hits; with 100,000 keys nearly every one misses and pays a hash and a compare more.
     *
     * <p>A miss builds a new key row and puts it in the slot, unless the backend accepts reused key rows
     * ({@link KeyedStateBackend#acceptsReusedKeyRows()}, the heap backend) and the slot holds a key that missed fewer
     * than {@value #REPLACE_AFTER_MISSES} times in a row: then the key is written into {@link #reusedKey} and no row is
     * allocated. At 100,000 keys a row per record was most of what the counter allocated (~50 of ~145 bytes per
     * record, with young collections every 0.6 s, each ~10 ms), and the cache churned without hitting; a slot still
     * follows a key set that changes, after {@value #REPLACE_AFTER_MISSES} misses.
     */
    private final Row[] recentKeys;
    /** Task thread only: the key group of {@code recentKeys[i]}. */
    private final int[] recentKeyGroups;
    /** Task thread only: {@link KeySelector#hash} of {@code recentKeys[i]}'s record (a quick reject before comparing). */
    private final int[] recentHashes;
    /** Task thread only: misses in a row of {@code recentKeys[i]} since it was put there or last hit. */
    private final int[] recentMisses;
    /** Task thread only: the key row a miss overwrites and sets, when the backend accepts it; created on first use. */
    private Row.Reusable reusedKey;
    /** The key fields' positions in the input row; null if not keyed. */
    private final int[] keyPositions;
    /** Task thread only. */
    private long records;
    /** Task thread only. */
    private int completedCheckpoints;

    /**
     * @param failAfterRecords records before the injected failure, 0 for none ({@code debug.inject-failure.*})
     * @param failAfterCheckpoints completed checkpoints to wait for before the injected failure
     */
    ChainedOperator(String operatorId, StreamOperator operator, DefaultOperatorContext context, KeySelector keySelector,
            int maxParallelism, long failAfterRecords, int failAfterCheckpoints) {
        this.operatorId = operatorId;
        this.operator = operator;
        this.context = context;
        this.keySelector = keySelector;
        this.maxParallelism = maxParallelism;
        this.failAfterRecords = failAfterRecords;
        this.failAfterCheckpoints = failAfterCheckpoints;
        this.keyPositions = keySelector == null ? null : keySelector.positions();
        this.recentKeys = keySelector == null ? null : new Row[RECENT_KEYS];
        this.recentKeyGroups = keySelector == null ? null : new int[RECENT_KEYS];
        this.recentHashes = keySelector == null ? null : new int[RECENT_KEYS];
        this.recentMisses = keySelector == null ? null : new int[RECENT_KEYS];
    }

    /** Counts a completed checkpoint for the injected failure's condition. Task thread. */
    void checkpointCompleted() {
        completedCheckpoints++;
    }

    void process(Row row) throws Exception {
        if (keySelector != null) {
            setCurrentKey(row);
        }
        if (failAfterRecords > 0 && ++records >= failAfterRecords) {
            if (completedCheckpoints >= failAfterCheckpoints) {
                throw new InjectedFailureException("injected failure in operator '" + operatorId + "' subtask "
                        + context.subtaskIndex() + " after " + records + " records and " + completedCheckpoints
                        + " completed checkpoints (debug.inject-failure.*)");
            }
            paceUntilCheckpointed();
        }
        operator.processElement(row, output);
    }

    /**
     * Makes {@code row}'s key the keyed state's current key, reusing a recent equal key row or the one reused key
     * row (see {@link #recentKeys}).
     */
    private void setCurrentKey(Row row) {
        KeyedStateBackend backend = context.keyedStateBackend();
        int hash = keySelector.hash(row);
        int slot = (hash ^ (hash >>> 16)) & (RECENT_KEYS - 1);
        Row key = recentKeys[slot];
        int keyGroup;
        if (key != null && recentHashes[slot] == hash && sameKey(key, row)) {
            keyGroup = recentKeyGroups[slot];
            recentMisses[slot] = 0;
        } else {
            keyGroup = keySelector.hashVersion().keyGroupForHash(hash, maxParallelism);
            if (key != null && ++recentMisses[slot] < REPLACE_AFTER_MISSES && backend.acceptsReusedKeyRows()) {
                key = overwriteReusedKey(row);
            } else {
                // the key row caches its hash: computed once here, reused by the state backend's lookups
                key = keySelector.key(row);
                recentKeys[slot] = key;
                recentKeyGroups[slot] = keyGroup;
                recentHashes[slot] = hash;
                recentMisses[slot] = 0;
            }
        }
        backend.setCurrentKey(key, keyGroup);
    }

    /** @return {@link #reusedKey}'s row, holding {@code row}'s key fields */
    private Row overwriteReusedKey(Row row) {
        Row.Reusable k = reusedKey;
        if (k == null) {
            k = reusedKey = new Row.Reusable(keySelector.keySchema());
        }
        for (int i = 0; i < keyPositions.length; i++) {
            k.setFrom(i, row, keyPositions[i]);
        }
        return k.row();
    }

    /** @return whether {@code key}'s fields equal {@code row}'s key fields, as {@link Row#equals} compares them */
    private boolean sameKey(Row key, Row row) {
        for (int i = 0; i < keyPositions.length; i++) {
            if (!key.fieldEquals(i, row, keyPositions[i])) {
                return false;
            }
        }
        return true;
    }

    /**
     * The record count is reached but not yet the completed checkpoints: slows this subtask to one
     * record per {@value #PACE_MS} ms so that the checkpoint can complete while input remains, on
     * any machine. Without it a fast machine processes the whole (bounded) input before the first
     * checkpoint completes and the failure never fires. Backpressure holds the upstream back meanwhile;
     * barriers and notifications are handled between records as usual.
     *
     * @throws IllegalStateException if interrupted (task cancellation); the interrupt flag is restored
     */
    private void paceUntilCheckpointed() {
        try {
            Thread.sleep(PACE_MS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while operator '" + operatorId + "' waited for "
                    + failAfterCheckpoints + " completed checkpoints before its injected failure", e);
        }
    }

    /**
     * The operator's watermark rose to {@code watermark}: fires its due event-time timers, then tells it.
     *
     * @throws Exception from the operator; fails the task
     */
    void advanceWatermark(long watermark) throws Exception {
        if (timers != null) {
            timers.advanceWatermark(watermark, this::fireTimer);
        }
        operator.processWatermark(watermark, output);
    }

    /** The processing-time wake-up mail: fires the due processing-time timers. */
    void fireProcessingTimers() throws Exception {
        timers.onProcessingTime(System.currentTimeMillis(), this::fireTimer);
    }

    private void fireTimer(long timestamp, Row key, io.weir.api.operator.TimeDomain domain) throws Exception {
        operator.onTimer(timestamp, key, domain, output);
    }

    /**
     * An output that feeds this operator: wraps checked exceptions so they unwind the chain; it retains rows as
     * the operator declares ({@link StreamOperator#retainsInputRows()}), so the previous operator may reuse its
     * output row when this one keeps none.
     */
    Output asOutput() {
        return new Output() {
            @Override
            public void collect(Row row) {
                try {
                    process(row);
                } catch (RuntimeException e) {
                    throw e;
                } catch (Exception e) {
                    throw new OperatorException(operatorId, e);
                }
            }

            @Override
            public boolean retainsRows() {
                return operator.retainsInputRows();
            }
        };
    }

    /** A checked operator exception travelling through {@link Output#collect}. */
    static final class OperatorException extends RuntimeException {
        private static final long serialVersionUID = 1L;

        OperatorException(String operatorId, Exception cause) {
            super("operator '" + operatorId + "' failed: " + cause.getMessage(), cause);
        }
    }
}
