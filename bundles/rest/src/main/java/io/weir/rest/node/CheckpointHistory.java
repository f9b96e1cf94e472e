package io.weir.rest.node;

import io.weir.core.checkpoint.CheckpointFailureReason;
import io.weir.core.coordination.CompletedCheckpointStats;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;

/**
 * The checkpoint statistics of one job as the REST API serves them: counts, the latest completed
 * checkpoint, the latest restore and the newest {@link #capacity} completed checkpoints (Flink's
 * {@code web.checkpoints.history} default is 10).
 *
 * <p>Thread-safe: written by the engine's checkpoint threads through {@link NodeJob}'s listener,
 * read by REST request threads; every method synchronizes on {@code this}.
 */
public final class CheckpointHistory {
    /** Completed checkpoints kept for {@code history}. */
    public static final int DEFAULT_CAPACITY = 10;

    private final int capacity;
    /** Guarded by {@code this}; newest first. */
    private final ArrayDeque<CompletedCheckpointStats> history = new ArrayDeque<>();
    /** Guarded by {@code this}. */
    private long completed;
    /** Guarded by {@code this}. */
    private long failed;
    /** Guarded by {@code this}. */
    private long restored;
    /** Guarded by {@code this}; null until the first restore. */
    private Restore lastRestore;
    /** Guarded by {@code this}; null until the first failure. */
    private Failure lastFailure;

    /** @param capacity completed checkpoints kept, at least 1 */
    public CheckpointHistory(int capacity) {
        if (capacity < 1) {
            throw new IllegalArgumentException("checkpoint history capacity must be at least 1, got " + capacity);
        }
        this.capacity = capacity;
    }

    /**
     * A restore of the job's tasks from a checkpoint.
     *
     * @param checkpointId the checkpoint restored
     * @param restoreTimestamp when, ms since the epoch
     * @param externalPath the checkpoint's location ({@code chk-N} directory)
     */
    public record Restore(long checkpointId, long restoreTimestamp, String externalPath) {
    }

    /**
     * The latest failed checkpoint.
     *
     * @param checkpointId its id
     * @param failureTimestamp when the node learned of it, ms since the epoch
     * @param reason the failure reason, never null
     * @param message the cause's message, or null
     */
    public record Failure(long checkpointId, long failureTimestamp, String reason, String message) {
    }

    /**
     * A consistent copy of everything.
     *
     * @param completed checkpoints completed since the node started the job
     * @param failed checkpoints failed since then
     * @param restored restores of the job's tasks (failovers, resume of an earlier run)
     * @param history completed checkpoints, newest first, at most the capacity
     * @param lastRestore the latest restore, or null
     * @param lastFailure the latest failed checkpoint, or null
     */
    public record Snapshot(long completed, long failed, long restored, List<CompletedCheckpointStats> history,
            Restore lastRestore, Failure lastFailure) {
        /** Copies {@code history}. */
        public Snapshot {
            history = List.copyOf(history);
        }

        /** @return the newest completed checkpoint, or null if none completed */
        public CompletedCheckpointStats latest() {
            return history.isEmpty() ? null : history.get(0);
        }
    }

    synchronized void completed(CompletedCheckpointStats stats) {
        completed++;
        history.addFirst(stats);
        while (history.size() > capacity) {
            history.removeLast();
        }
    }

    synchronized void failed(long checkpointId, long now, CheckpointFailureReason reason, Throwable cause) {
        failed++;
        lastFailure = new Failure(checkpointId, now, String.valueOf(reason), cause == null ? null : cause.getMessage());
    }

    synchronized void restored(long checkpointId, long now, String pointer) {
        restored++;
        lastRestore = new Restore(checkpointId, now, pointer);
    }

    /** @return a consistent copy of the counts and history */
    public synchronized Snapshot snapshot() {
        return new Snapshot(completed, failed, restored, new ArrayList<>(history), lastRestore, lastFailure);
    }
}
