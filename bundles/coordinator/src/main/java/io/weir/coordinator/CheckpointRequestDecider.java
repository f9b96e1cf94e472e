package io.weir.coordinator;

import io.weir.core.checkpoint.CheckpointFailureReason;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;

/**
 * Decides whether a checkpoint request may be triggered now (PROTOCOL.md §2 "request decider"):
 * at most {@code maxConcurrent} pending checkpoints, and at least {@code minPauseMs} between the last
 * completion and the next trigger.
 * <ul>
 *   <li>Periodic requests that cannot go now are rejected (not counted as failures) with
 *       {@link CheckpointFailureReason#TOO_MANY_CHECKPOINT_REQUESTS} or
 *       {@link CheckpointFailureReason#MINIMUM_TIME_BETWEEN_CHECKPOINTS}; the scheduler tries again.</li>
 *   <li>Manual and final requests wait in a FIFO queue of at most {@code maxQueued} entries and go
 *       when {@link #poll} finds room (after a pending checkpoint finished or the pause ended); a
 *       request arriving at a full queue is rejected with TOO_MANY_CHECKPOINT_REQUESTS.</li>
 *   <li>Queued requests go before periodic ones.</li>
 * </ul>
 * Pure logic with the time passed in. Not thread-safe: checkpoint timer thread only.
 */
final class CheckpointRequestDecider {

    /** What to do with a request. */
    sealed interface Decision permits Trigger, Reject, Wait {
    }

    /** Trigger {@code request} now. */
    record Trigger(CheckpointRequest request) implements Decision {
    }

    /** Fail {@code request} with {@code reason} (never counted). */
    record Reject(CheckpointRequest request, CheckpointFailureReason reason) implements Decision {
    }

    /**
     * Nothing to trigger now.
     *
     * @param retryAtMs when {@link #poll} may succeed (pause end, ms since the epoch), or
     *        {@link #ON_CHECKPOINT_FINISHED} if it waits for a pending checkpoint to finish (or nothing is queued)
     */
    record Wait(long retryAtMs) implements Decision {
    }

    /** {@link Wait#retryAtMs()} when no timer is needed. */
    static final long ON_CHECKPOINT_FINISHED = -1;

    private final int maxConcurrent;
    private final long minPauseMs;
    private final int maxQueued;
    /** Manual and final requests waiting for room, oldest first. Checkpoint timer thread only. */
    private final ArrayDeque<CheckpointRequest> queue = new ArrayDeque<>();
    /** Completion time of the last completed checkpoint, ms since the epoch; valid if {@link #completedAny}. Checkpoint timer thread only. */
    private long lastCompletionMs;
    /** Checkpoint timer thread only. */
    private boolean completedAny;

    /**
     * @param maxConcurrent pending checkpoints at once, ≥ 1
     * @param minPauseMs ms between the last completion and the next trigger, ≥ 0
     * @param maxQueued manual/final requests that may wait, ≥ 1
     */
    CheckpointRequestDecider(int maxConcurrent, long minPauseMs, int maxQueued) {
        if (maxConcurrent < 1 || minPauseMs < 0 || maxQueued < 1) {
            throw new IllegalArgumentException("invalid decider settings: maxConcurrent=" + maxConcurrent
                    + ", minPauseMs=" + minPauseMs + ", maxQueued=" + maxQueued);
        }
        this.maxConcurrent = maxConcurrent;
        this.minPauseMs = minPauseMs;
        this.maxQueued = maxQueued;
    }

    /**
     * Decides on a new request.
     *
     * @param pendingCount checkpoints pending now (including ones whose master hooks still run)
     * @param now current time, ms since the epoch
     */
    Decision submit(CheckpointRequest request, int pendingCount, long now) {
        if (request.isPeriodic()) {
            if (pendingCount >= maxConcurrent || !queue.isEmpty()) {
                return new Reject(request, CheckpointFailureReason.TOO_MANY_CHECKPOINT_REQUESTS);
            }
            if (now < pauseEnd()) {
                return new Reject(request, CheckpointFailureReason.MINIMUM_TIME_BETWEEN_CHECKPOINTS);
            }
            return new Trigger(request);
        }
        if (queue.isEmpty() && blockedUntil(pendingCount, now) == null) {
            return new Trigger(request);
        }
        if (queue.size() >= maxQueued) {
            return new Reject(request, CheckpointFailureReason.TOO_MANY_CHECKPOINT_REQUESTS);
        }
        queue.addLast(request);
        return poll(pendingCount, now);
    }

    /**
     * Picks the oldest queued request if it may go now.
     *
     * @param pendingCount checkpoints pending now
     * @param now current time, ms since the epoch
     * @return {@link Trigger} with the request (removed from the queue), or {@link Wait}
     */
    Decision poll(int pendingCount, long now) {
        if (queue.isEmpty()) {
            return new Wait(ON_CHECKPOINT_FINISHED);
        }
        Long blocked = blockedUntil(pendingCount, now);
        if (blocked != null) {
            return new Wait(blocked);
        }
        return new Trigger(queue.pollFirst());
    }

    /** Records a completion: the min-pause is measured from {@code completionMs} (ms since the epoch). */
    void checkpointCompleted(long completionMs) {
        lastCompletionMs = completionMs;
        completedAny = true;
    }

    /** @return the earliest time (ms since the epoch) the min-pause allows a trigger; Long.MIN_VALUE if none applies */
    long pauseEnd() {
        return completedAny ? lastCompletionMs + minPauseMs : Long.MIN_VALUE;
    }

    /** Removes and returns every queued request, oldest first (on shutdown). */
    List<CheckpointRequest> drainQueue() {
        List<CheckpointRequest> drained = new ArrayList<>(queue);
        queue.clear();
        return drained;
    }

    /** @return requests waiting in the queue */
    int queuedCount() {
        return queue.size();
    }

    /** @return null if a trigger may happen now, else the retry time or {@link #ON_CHECKPOINT_FINISHED} */
    private Long blockedUntil(int pendingCount, long now) {
        if (pendingCount >= maxConcurrent) {
            return ON_CHECKPOINT_FINISHED;
        }
        long pauseEnd = pauseEnd();
        return now < pauseEnd ? pauseEnd : null;
    }
}
