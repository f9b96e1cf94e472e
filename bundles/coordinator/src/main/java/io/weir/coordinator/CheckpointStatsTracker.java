package io.weir.coordinator;

import io.weir.core.checkpoint.CheckpointFailureReason;
import io.weir.core.checkpoint.CompletedCheckpoint;
import io.weir.core.checkpoint.SubtaskCheckpointMetrics;
import io.weir.core.checkpoint.TaskId;
import io.weir.core.coordination.CheckpointStatsListener;
import io.weir.core.coordination.CheckpointTriggerKind;
import io.weir.core.coordination.CompletedCheckpointStats;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Computes checkpoint statistics (PROTOCOL.md §5) and reports them to the job's
 * {@link CheckpointStatsListener}; a listener that throws is logged, never allowed to disturb the
 * coordinator. Called on the checkpoint timer thread.
 */
final class CheckpointStatsTracker {
    private static final Logger LOG = LoggerFactory.getLogger(CheckpointStatsTracker.class);

    private final String jobName;
    private final CheckpointStatsListener listener;

    /** @param listener may be null (no one listens) */
    CheckpointStatsTracker(String jobName, CheckpointStatsListener listener) {
        this.jobName = jobName;
        this.listener = listener;
    }

    /**
     * End-to-end duration = completion − trigger timestamp; sizes are sums over the subtasks' metrics.
     *
     * @return the statistics of {@code completed}, built from {@code pending}'s acks
     */
    static CompletedCheckpointStats statsOf(PendingCheckpoint pending, CompletedCheckpoint completed) {
        long size = 0;
        long persisted = 0;
        Map<TaskId, SubtaskCheckpointMetrics> subtasks = new LinkedHashMap<>();
        for (PendingCheckpoint.Acknowledgement ack : pending.acknowledgements()) {
            size += ack.metrics().checkpointedSizeBytes();
            persisted += ack.metrics().persistedDataBytes();
            subtasks.put(ack.task(), ack.metrics());
        }
        return new CompletedCheckpointStats(completed.checkpointId(), completed.triggerTimestamp(),
                completed.completionTimestamp() - completed.triggerTimestamp(), size, persisted,
                pending.request().kind() == CheckpointTriggerKind.FINAL, subtasks,
                pending.request().kind() == CheckpointTriggerKind.SAVEPOINT, completed.externalPointer());
    }

    /** Reports a completed checkpoint and returns its statistics. */
    CompletedCheckpointStats reportCompleted(PendingCheckpoint pending, CompletedCheckpoint completed) {
        CompletedCheckpointStats stats = statsOf(pending, completed);
        if (listener != null) {
            try {
                listener.onCompleted(stats);
            } catch (RuntimeException e) {
                LOG.warn("Checkpoint stats listener of job {} failed on completed checkpoint {}", jobName,
                        stats.checkpointId(), e);
            }
        }
        return stats;
    }

    /** Reports a failed checkpoint; {@code cause} may be null. */
    void reportFailed(long checkpointId, CheckpointFailureReason reason, Throwable cause) {
        if (listener != null) {
            try {
                listener.onFailed(checkpointId, reason, cause);
            } catch (RuntimeException e) {
                LOG.warn("Checkpoint stats listener of job {} failed on failed checkpoint {}", jobName, checkpointId, e);
            }
        }
    }
}
