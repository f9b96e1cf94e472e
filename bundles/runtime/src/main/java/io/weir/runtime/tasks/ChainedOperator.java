package io.weir.runtime.tasks;

import io.weir.api.Row;
import io.weir.api.operator.Output;
import io.weir.api.operator.StreamOperator;
import io.weir.core.state.KeyGroupAssignment;
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
    }

    /** Counts a completed checkpoint for the injected failure's condition. Task thread. */
    void checkpointCompleted() {
        completedCheckpoints++;
    }

    void process(Row row) throws Exception {
        if (keySelector != null) {
            // the key row caches its hash: computed once here, reused by the state backend's lookups
            Row key = keySelector.key(row);
            context.keyedStateBackend().setCurrentKey(key, KeyGroupAssignment.keyGroupFor(key, maxParallelism));
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

    /** An output that feeds this operator: wraps checked exceptions so they unwind the chain. */
    Output asOutput() {
        return row -> {
            try {
                process(row);
            } catch (RuntimeException e) {
                throw e;
            } catch (Exception e) {
                throw new OperatorException(operatorId, e);
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
