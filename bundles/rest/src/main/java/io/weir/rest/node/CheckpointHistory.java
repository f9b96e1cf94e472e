package io.weir.rest.node;

import io.weir.core.checkpoint.CheckpointFailureReason;
import io.weir.core.coordination.CompletedCheckpointStats;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;

/**
 * The checkpoint statistics of one job as the REST API serves them: counts, the latest completed
 * checkpoint, savepoint, failure and restore, and the newest {@link #capacity} finished checkpoints,
 * completed or failed (Flink's {@code web.checkpoints.history} default is 10).
 *
 * <p>Thread-safe: written by the engine's checkpoint threads through {@link NodeJob}'s listener,
 * read by REST request threads; every method synchronizes on {@code this}.
 */
public final class CheckpointHistory {
    /** Finished checkpoints kept for {@code history}. */
    public static final int DEFAULT_CAPACITY = 10;

    private final int capacity;
    /** Guarded by {@code this}; newest first. */
    private final ArrayDeque<Entry> history = new ArrayDeque<>();
    /** Guarded by {@code this}. */
    private long completed;
    /** Guarded by {@code this}. */
    private long failed;
    /** Guarded by {@code this}. */
    private long restored;
    /** Guarded by {@code this}; the newest completed checkpoint that is not a savepoint, null until one. */
    private CompletedCheckpointStats latestCompleted;
    /** Guarded by {@code this}; null until the first savepoint. */
    private CompletedCheckpointStats latestSavepoint;
    /** Guarded by {@code this}; null until the first restore. */
    private Restore lastRestore;
    /** Guarded by {@code this}; null until the first failure. */
    private Failure lastFailure;

    /** @param capacity finished checkpoints kept, at least 1 */
    public CheckpointHistory(int capacity) {
        if (capacity < 1) {
            throw new IllegalArgumentException("checkpoint history capacity must be at least 1, got " + capacity);
        }
        this.capacity = capacity;
    }

    /** One finished checkpoint of {@code history}: {@link Completed} or {@link Failure}. */
    public sealed interface Entry permits Completed, Failure {
        /** @return the checkpoint id */
        long checkpointId();
    }

    /**
     * A completed checkpoint or savepoint.
     *
     * @param stats what the engine measured
     */
    public record Completed(CompletedCheckpointStats stats) implements Entry {
        @Override
        public long checkpointId() {
            return stats.checkpointId();
        }
    }

    /**
     * A restore of the job's tasks from a checkpoint.
     *
     * @param checkpointId the checkpoint restored
     * @param restoreTimestamp when, ms since the epoch
     * @param externalPath the checkpoint's location ({@code chk-N} or savepoint directory)
     * @param isSavepoint whether it was a savepoint (the job's initial one, or one it took)
     */
    public record Restore(long checkpointId, long restoreTimestamp, String externalPath, boolean isSavepoint) {
    }

    /**
     * A failed checkpoint.
     *
     * @param checkpointId its id
     * @param failureTimestamp when the node learned of it, ms since the epoch
     * @param reason the failure reason, never null
     * @param message the cause's message, or null
     */
    public record Failure(long checkpointId, long failureTimestamp, String reason, String message) implements Entry {
        /** @return the reason and, if there is one, the cause's message: Flink's {@code failure_message} */
        public String failureMessage() {
            return message == null ? reason : reason + ": " + message;
        }
    }

    /**
     * A consistent copy of everything.
     *
     * @param completed checkpoints (and savepoints) completed since the node started the job
     * @param failed checkpoints failed since then
     * @param restored restores of the job's tasks (failovers, resume of an earlier run)
     * @param history finished checkpoints, newest first, at most the capacity
     * @param latestCompleted the newest completed checkpoint that is not a savepoint, or null
     * @param latestSavepoint the newest completed savepoint, or null
     * @param lastRestore the latest restore, or null
     * @param lastFailure the latest failed checkpoint, or null
     */
    public record Snapshot(long completed, long failed, long restored, List<Entry> history,
            CompletedCheckpointStats latestCompleted, CompletedCheckpointStats latestSavepoint,
            Restore lastRestore, Failure lastFailure) {
        /** Copies {@code history}. */
        public Snapshot {
            history = List.copyOf(history);
        }

        /** @return the newest completed checkpoint that is not a savepoint, or null if none completed */
        public CompletedCheckpointStats latest() {
            return latestCompleted;
        }

        /**
         * @param checkpointId a checkpoint id
         * @return that checkpoint if it is still in {@link #history} or is the latest checkpoint or savepoint, else null
         */
        public Entry find(long checkpointId) {
            for (Entry e : history) {
                if (e.checkpointId() == checkpointId) {
                    return e;
                }
            }
            for (CompletedCheckpointStats s : new CompletedCheckpointStats[] {latestCompleted, latestSavepoint}) {
                if (s != null && s.checkpointId() == checkpointId) {
                    return new Completed(s);
                }
            }
            return null;
        }
    }

    /**
     * Sets the latest checkpoint and savepoint a node restart read from the registry, without counting
     * them or adding them to the history; a checkpoint completed later replaces them.
     *
     * @param checkpoint the latest completed checkpoint, or null
     * @param savepoint the latest savepoint, or null
     */
    synchronized void seedLatest(CompletedCheckpointStats checkpoint, CompletedCheckpointStats savepoint) {
        if (checkpoint != null && latestCompleted == null) {
            latestCompleted = checkpoint;
        }
        if (savepoint != null && latestSavepoint == null) {
            latestSavepoint = savepoint;
        }
    }

    synchronized void completed(CompletedCheckpointStats stats) {
        completed++;
        if (stats.isSavepoint()) {
            latestSavepoint = stats;
        } else {
            latestCompleted = stats;
        }
        add(new Completed(stats));
    }

    synchronized void failed(long checkpointId, long now, CheckpointFailureReason reason, Throwable cause) {
        failed++;
        lastFailure = new Failure(checkpointId, now, String.valueOf(reason), cause == null ? null : cause.getMessage());
        add(lastFailure);
    }

    /**
     * A restore; it was from a savepoint if {@code pointer} is the job's initial savepoint or a savepoint this
     * history saw complete.
     *
     * @param initialSavepoint the job's {@code execution.savepoint.path}, or null
     */
    synchronized void restored(long checkpointId, long now, String pointer, String initialSavepoint) {
        restored++;
        boolean savepoint = pointer != null && (samePath(pointer, initialSavepoint)
                || latestSavepoint != null && samePath(pointer, latestSavepoint.externalPath()));
        lastRestore = new Restore(checkpointId, now, pointer, savepoint);
    }

    private static boolean samePath(String a, String b) {
        if (b == null) {
            return false;
        }
        try {
            return java.nio.file.Path.of(a).toAbsolutePath().normalize().equals(java.nio.file.Path.of(b).toAbsolutePath().normalize());
        } catch (java.nio.file.InvalidPathException e) {
            return a.equals(b);
        }
    }

    /** Guarded by {@code this}. */
    private void add(Entry entry) {
        history.addFirst(entry);
        while (history.size() > capacity) {
            history.removeLast();
        }
    }

    /** @return a consistent copy of the counts and history */
    public synchronized Snapshot snapshot() {
        return new Snapshot(completed, failed, restored, new ArrayList<>(history), latestCompleted, latestSavepoint,
                lastRestore, lastFailure);
    }
}
