package io.weir.coordinator;

import io.weir.core.checkpoint.CheckpointOptions;
import io.weir.core.checkpoint.SubtaskCheckpointMetrics;
import io.weir.core.checkpoint.TaskId;
import io.weir.core.checkpoint.TaskStateSnapshot;
import io.weir.core.coordination.TaskCheckpointGateway;

import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * A checkpoint that was triggered and is not yet complete or aborted: the ack bookkeeping of
 * PROTOCOL.md §2 ("Each ack removes a task from the not-yet-acknowledged set").
 *
 * <pre>
 *   TRIGGERING ──(master hooks done, trigger RPCs sent)──► TRIGGERED ──(all acked, _metadata durable)──► COMPLETED
 *        │                                                    │
 *        └──────────────(expired, declined, failover, I/O)────┴──────────────────────────────────────► ABORTED
 * </pre>
 * Not thread-safe: checkpoint timer thread only.
 */
final class PendingCheckpoint {

    /** Lifecycle; {@link #canMoveTo} is the single list of legal transitions. */
    enum State {
        /** Created; storage location and master hooks in progress; no task triggered yet. */
        TRIGGERING,
        /** Trigger RPCs sent; collecting acks. */
        TRIGGERED,
        /** Metadata durable and the checkpoint in the store. Terminal. */
        COMPLETED,
        /** Aborted for some reason; its location is discarded. Terminal. */
        ABORTED;

        boolean canMoveTo(State next) {
            return switch (this) {
                case TRIGGERING -> next == TRIGGERED || next == ABORTED;
                case TRIGGERED -> next == COMPLETED || next == ABORTED;
                case COMPLETED, ABORTED -> false;
            };
        }
    }

    /** Outcome of {@link #acknowledge}. */
    enum AckResult {
        /** Recorded; the task was waited for. */
        SUCCESS,
        /** The task had acked already; ignored. */
        DUPLICATE,
        /** The plan does not wait for this task (e.g. an old attempt); ignored. */
        UNKNOWN_TASK,
        /** The checkpoint is not collecting acks (not yet triggered, or terminal); ignored. */
        NOT_ACCEPTING
    }

    /**
     * One task's ack.
     *
     * @param task the task and attempt
     * @param metrics what it measured
     * @param state its state handles
     */
    record Acknowledgement(TaskId task, SubtaskCheckpointMetrics metrics, TaskStateSnapshot state) {
        Acknowledgement {
            Objects.requireNonNull(task, "task");
            Objects.requireNonNull(metrics, "metrics");
            Objects.requireNonNull(state, "state");
        }
    }

    private final long checkpointId;
    private final long triggerTimestamp;
    private final CheckpointRequest request;
    private final CheckpointPlan plan;
    private final CheckpointOptions options;
    /** Tasks whose ack is outstanding, in plan order. Checkpoint timer thread only. */
    private final Map<TaskId, TaskCheckpointGateway> notYetAcknowledged = new LinkedHashMap<>();
    /** Acks received, in arrival order. Checkpoint timer thread only. */
    private final Map<TaskId, Acknowledgement> acknowledged = new LinkedHashMap<>();
    /** Checkpoint timer thread only. */
    private State state = State.TRIGGERING;
    /** Checkpoint timer thread only. */
    private CheckpointTimer.Cancellable timeoutCanceller;
    /** Checkpoint timer thread only. */
    private Map<String, byte[]> masterStates = Map.of();

    /**
     * @param checkpointId id from the id counter, ≥ 1
     * @param triggerTimestamp creation time, ms since the epoch
     * @param request the request that started it
     * @param plan tasks involved
     * @param options barrier options
     */
    PendingCheckpoint(long checkpointId, long triggerTimestamp, CheckpointRequest request, CheckpointPlan plan,
            CheckpointOptions options) {
        if (checkpointId < 1) {
            throw new IllegalArgumentException("checkpoint id must be >= 1, got " + checkpointId);
        }
        this.checkpointId = checkpointId;
        this.triggerTimestamp = triggerTimestamp;
        this.request = Objects.requireNonNull(request, "request");
        this.plan = Objects.requireNonNull(plan, "plan");
        this.options = Objects.requireNonNull(options, "options");
        for (TaskCheckpointGateway t : plan.tasksToWaitFor()) {
            notYetAcknowledged.put(t.taskId(), t);
        }
    }

    /**
     * Moves to {@code next}.
     *
     * @throws IllegalStateException naming both states if the transition is not allowed
     */
    void transitionTo(State next) {
        if (!state.canMoveTo(next)) {
            throw new IllegalStateException("checkpoint " + checkpointId + ": illegal transition " + state + " -> " + next);
        }
        state = next;
    }

    /** Records an ack; see {@link AckResult} for what is ignored. */
    AckResult acknowledge(TaskId task, SubtaskCheckpointMetrics metrics, TaskStateSnapshot snapshot) {
        if (state != State.TRIGGERED) {
            return AckResult.NOT_ACCEPTING;
        }
        if (notYetAcknowledged.remove(task) != null) {
            acknowledged.put(task, new Acknowledgement(task, metrics, snapshot));
            return AckResult.SUCCESS;
        }
        return acknowledged.containsKey(task) ? AckResult.DUPLICATE : AckResult.UNKNOWN_TASK;
    }

    /** @return whether {@code task} (this exact attempt) is part of the plan */
    boolean waitsFor(TaskId task) {
        return notYetAcknowledged.containsKey(task) || acknowledged.containsKey(task);
    }

    /** @return whether every task of the plan acked */
    boolean isFullyAcknowledged() {
        return notYetAcknowledged.isEmpty();
    }

    /** @return tasks whose ack is outstanding (for the expiry log) */
    Set<TaskId> notYetAcknowledgedTasks() {
        return Set.copyOf(notYetAcknowledged.keySet());
    }

    /** @return acks received, in arrival order */
    Collection<Acknowledgement> acknowledgements() {
        return List.copyOf(acknowledged.values());
    }

    /** Keeps the timeout task so completion or abort can cancel it. */
    void setTimeoutCanceller(CheckpointTimer.Cancellable canceller) {
        this.timeoutCanceller = canceller;
    }

    /** Cancels the timeout task, if any. */
    void cancelTimeout() {
        if (timeoutCanceller != null) {
            timeoutCanceller.cancel();
        }
    }

    /** Keeps the master hooks' state (hook id → bytes). */
    void setMasterStates(Map<String, byte[]> states) {
        this.masterStates = Map.copyOf(states);
    }

    /** @return master hook id → state bytes, empty before the hooks finished */
    Map<String, byte[]> masterStates() {
        return masterStates;
    }

    long checkpointId() {
        return checkpointId;
    }

    long triggerTimestamp() {
        return triggerTimestamp;
    }

    CheckpointRequest request() {
        return request;
    }

    CheckpointPlan plan() {
        return plan;
    }

    CheckpointOptions options() {
        return options;
    }

    State state() {
        return state;
    }

    /** @return whether it is completed or aborted */
    boolean isDisposed() {
        return state == State.COMPLETED || state == State.ABORTED;
    }
}
