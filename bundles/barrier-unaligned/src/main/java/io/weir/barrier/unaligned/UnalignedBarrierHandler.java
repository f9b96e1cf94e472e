package io.weir.barrier.unaligned;

import io.weir.core.barrier.AbstractExactlyOnceBarrierHandler;
import io.weir.core.barrier.BarrierAlignment;
import io.weir.core.barrier.BarrierHandlerContext;
import io.weir.core.barrier.HandlerStateMachine;
import io.weir.core.barrier.PendingBarriers;
import io.weir.core.checkpoint.CheckpointAlignment;
import io.weir.core.checkpoint.CheckpointBarrier;
import io.weir.core.checkpoint.CheckpointFailureReason;
import java.util.Arrays;

/**
 * The barrier handler for unaligned checkpoints and aligned checkpoints with a timeout
 * (PROTOCOL.md §4, §6; modelled on Flink's {@code SingleCheckpointBarrierHandler} with the
 * {@code AlternatingWaitingForFirstBarrierUnaligned} / {@code AlternatingCollectingBarriersUnaligned}
 * states). The kind is decided per checkpoint from the options of its first barrier:
 * <ul>
 *   <li>{@link CheckpointAlignment#UNALIGNED}: at the first barrier the task snapshots at once and
 *       the runtime records every buffer read from the channels whose barrier is still
 *       missing, until each one's barrier arrives. Nothing is blocked.</li>
 *   <li>{@link CheckpointAlignment#ALIGNED_WITH_TIMEOUT} with a timeout T &gt; 0 ms: aligned (each
 *       channel that delivered the barrier is blocked), with an alignment timer of
 *       max(0, T − start delay) ms registered at the first barrier. If it fires while still
 *       aligning, or an unaligned barrier of the same checkpoint arrives (its producer switched),
 *       the checkpoint switches to unaligned: resume all, trigger with the barrier as unaligned,
 *       record the missing channels and ask their producers to let the barrier overtake.</li>
 *   <li>{@link CheckpointAlignment#ALIGNED}, or with-timeout with T = 0: exactly like
 *       {@code AlignedBarrierHandler}.</li>
 * </ul>
 *
 * <pre>
 *   WAITING_FOR_FIRST_BARRIER ── unaligned barrier n, other channels missing:
 *                                trigger, start persisting them ──► COLLECTING_UNALIGNED(n)
 *   WAITING_FOR_FIRST_BARRIER ── aligned barrier n, other channels missing:
 *                                block (+ register timer if timeoutable) ──► COLLECTING_ALIGNED(n)
 *   WAITING_FOR_FIRST_BARRIER ── barrier n on the only channel: trigger
 *                                (+ start persisting nothing if unaligned) ──► (stays)
 *   COLLECTING_ALIGNED(n) ── aligned barrier n, others missing: block ──► (stays)
 *   COLLECTING_ALIGNED(n) ── last channel's barrier n: resume all, trigger ──► WAITING_FOR_FIRST_BARRIER
 *   COLLECTING_ALIGNED(n) ── timer of n fires, or unaligned barrier n: resume all, trigger unaligned,
 *                            persist + request priority barriers for the missing ──► COLLECTING_UNALIGNED(n)
 *                            (or ──► WAITING_FOR_FIRST_BARRIER if that barrier was the last missing)
 *   COLLECTING_UNALIGNED(n) ── barrier n of a missing channel: stop persisting it;
 *                              when none is missing ──► WAITING_FOR_FIRST_BARRIER
 *   COLLECTING_*(n) ── barrier m &gt; n: (resume all if blocked) abort n (subsumed) ──► WAITING ──► first barrier m
 *   COLLECTING_*(n) ── cancel marker m ≥ n: (resume all if blocked) abort ──► WAITING_FOR_FIRST_BARRIER
 *   any ── close() ──► CLOSED (terminal; every later event but a timer throws IllegalStateException)
 * </pre>
 *
 * <p>Rules: a barrier or cancel marker whose id is at most the last triggered or aborted
 * checkpoint, or older than the one in progress, is stale and ignored. A cancel marker for a
 * checkpoint newer than anything seen aborts it at once and makes its later barriers stale. The
 * runtime discards the recorded data of aborted checkpoints itself, so aborts make no
 * {@code stopPersistingInflight} calls.
 *
 * <p>Thread confinement: one instance per task, every method on the task thread only; no locks.
 */
public final class UnalignedBarrierHandler extends AbstractExactlyOnceBarrierHandler {
    /** States of the handler; {@link #canTransitionTo} is the single transition table. */
    enum Phase implements HandlerStateMachine.Phase<Phase> {
        /** No checkpoint in progress; no channel blocked, nothing recorded. */
        WAITING_FOR_FIRST_BARRIER,
        /** Aligning: some but not all channels delivered the barrier; those are blocked. */
        COLLECTING_ALIGNED,
        /** Triggered unaligned; the channels whose barrier is missing are being recorded. Nothing blocked. */
        COLLECTING_UNALIGNED,
        /** The task shut down; terminal. */
        CLOSED;

        /** @return whether the handler may move from this state to {@code next} */
        @Override
        public boolean canTransitionTo(Phase next) {
            return switch (this) {
                case WAITING_FOR_FIRST_BARRIER ->
                        next == COLLECTING_ALIGNED || next == COLLECTING_UNALIGNED || next == CLOSED;
                case COLLECTING_ALIGNED ->
                        next == WAITING_FOR_FIRST_BARRIER || next == COLLECTING_UNALIGNED || next == CLOSED;
                case COLLECTING_UNALIGNED -> next == WAITING_FOR_FIRST_BARRIER || next == CLOSED;
                case CLOSED -> false;
            };
        }
    }

    /**
     * A state of the handler, carrying what is valid in it: only the collecting states have a checkpoint in
     * progress. Every event computes the next state from the current one; {@link HandlerStateMachine#enter} checks the move against
     * {@link Phase#canTransitionTo}.
     */
    sealed interface State extends HandlerStateMachine.State<Phase> permits Idle, CollectingAligned, CollectingUnaligned {
    }

    /**
     * A state without a checkpoint in progress: waiting for a first barrier (nothing blocked or recorded), or closed.
     *
     * @param phase WAITING_FOR_FIRST_BARRIER or CLOSED
     */
    record Idle(Phase phase) implements State {
    }

    /**
     * Aligning checkpoint {@code pending}: the channels that delivered its barrier are blocked.
     *
     * @param pending the checkpoint in progress
     */
    record CollectingAligned(PendingBarriers pending) implements State {
        @Override
        public Phase phase() {
            return Phase.COLLECTING_ALIGNED;
        }
    }

    /**
     * Checkpoint {@code pending} was triggered unaligned; the channels whose barrier is missing are being
     * recorded. Nothing blocked.
     *
     * @param pending the checkpoint in progress
     */
    record CollectingUnaligned(PendingBarriers pending) implements State {
        @Override
        public Phase phase() {
            return Phase.COLLECTING_UNALIGNED;
        }
    }

    private static final State WAITING = new Idle(Phase.WAITING_FOR_FIRST_BARRIER);
    private static final State CLOSED = new Idle(Phase.CLOSED);

    /** The current state and its checked moves. Task thread only. */
    private final HandlerStateMachine<Phase, State> state;

    /**
     * @param context the task's channels and checkpoint actions; {@code numberOfInputChannels()}
     *     is read once, here
     * @param taskName for logs and error messages
     * @throws IllegalArgumentException if the context reports fewer than one input channel
     * @throws NullPointerException if an argument is null
     */
    public UnalignedBarrierHandler(BarrierHandlerContext context, String taskName) {
        super(context, taskName);
        this.state = new HandlerStateMachine<>(taskName, WAITING);
    }

    /** @throws IllegalArgumentException for an {@link CheckpointAlignment#AT_LEAST_ONCE} barrier: this handler is for exactly-once */
    @Override
    protected void checkBarrier(CheckpointBarrier barrier, int channel) {
        if (barrier.options().alignment() == CheckpointAlignment.AT_LEAST_ONCE) {
            throw new IllegalArgumentException("task " + taskName + ": barrier of checkpoint " + barrier.checkpointId()
                    + " on channel " + channel + " is AT_LEAST_ONCE; the unaligned handler serves exactly-once checkpoints only");
        }
    }

    /** Starts checkpoint <i>n</i> as its first barrier's options say (see the class comment). */
    @Override
    protected void onFirstBarrier(CheckpointBarrier barrier, int channel) {
        state.enter(startCheckpoint(barrier, channel));
    }

    /** Advances, switches or completes the checkpoint in progress (see the class comment). */
    @Override
    protected void onFurtherBarrier(CheckpointBarrier barrier, int channel) {
        if (state.current() instanceof CollectingUnaligned unaligned) {
            context.stopPersistingInflight(barrier.checkpointId(), channel);
            state.enter(finishUnalignedIfComplete(unaligned));
        } else if (state.current() instanceof CollectingAligned aligned) {
            state.enter(alignedBarrierCounted(aligned, barrier, channel));
        } else {
            throw new IllegalStateException("task " + taskName + ": barrier of checkpoint " + barrier.checkpointId()
                    + " on channel " + channel + " counted in state " + state.current().phase());
        }
    }

    /**
     * A further barrier of the checkpoint being aligned, from {@code channel} (already marked delivered).
     *
     * @return the next state: collecting unaligned (or waiting) if the barrier is unaligned, waiting if the
     *         alignment completed, else {@code aligned} with the channel blocked
     */
    private State alignedBarrierCounted(CollectingAligned aligned, CheckpointBarrier barrier, int channel) {
        if (barrier.options().isUnaligned()) {
            // Its producer's output-queue timer fired: the checkpoint is unaligned from now on
            // (Flink's AbstractAlternatingAlignedBarrierHandlerState#barrierReceived).
            return switchToUnaligned(aligned.pending(), "unaligned barrier on channel " + channel);
        }
        if (aligned.pending().isComplete(channels)) {
            return completeAlignment(aligned.pending());
        }
        aligned.pending().markBlocked();
        context.blockChannel(channel);
        return aligned;
    }

    /**
     * The alignment timer of {@code checkpointId} fired: if that checkpoint is still aligning with
     * a timeout, it switches to unaligned (resume all, trigger with the barrier as unaligned,
     * persist the missing channels, request priority barriers for them). Otherwise — the alignment
     * completed, the checkpoint was aborted or switched already, or the handler is closed (a timer
     * may race with task shutdown) — the timer is ignored.
     */
    @Override
    public void onAlignmentTimeout(long checkpointId) {
        if (!(state.current() instanceof CollectingAligned aligned) || aligned.pending().checkpointId() != checkpointId
                || !AlignmentTimeout.appliesTo(aligned.pending().barrier())) {
            PendingBarriers pending = inProgress();
            log.debug("Task {}: ignoring alignment timer of checkpoint {} ({}, in progress {})",
                    taskName, checkpointId, state.current().phase(), pending == null ? "none" : pending.checkpointId());
            return;
        }
        state.enter(switchToUnaligned(aligned.pending(),
                "alignment timeout of " + aligned.pending().barrier().options().alignedTimeoutMs() + " ms"));
    }

    /** @return whether a checkpoint is in progress here: COLLECTING_ALIGNED or COLLECTING_UNALIGNED */
    @Override
    public boolean isAligning() {
        return state.current() instanceof CollectingAligned || state.current() instanceof CollectingUnaligned;
    }

    /**
     * Abandons the checkpoint in progress, if any, without aborting it (the task is going away),
     * resumes blocked channels and moves to CLOSED. Idempotent.
     */
    @Override
    public void close() {
        if (state.current() == CLOSED) {
            return;
        }
        PendingBarriers abandoned = inProgress();
        state.enter(CLOSED);
        if (abandoned != null) {
            log.debug("Task {}: closing while checkpoint {} is in progress", taskName, abandoned.checkpointId());
            if (abandoned.hasBlockedChannels()) {
                context.resumeAllChannels();
            }
        }
    }

    /** @return the current state's phase, for tests */
    Phase phase() {
        return state.current().phase();
    }

    /**
     * The first counted barrier of a checkpoint (the handler is waiting): starts it unaligned (trigger, record the
     * missing channels) or aligned (block, with a timer if it may switch). Each branch enters its state before
     * calling out, so a trigger that throws leaves the handler consistent.
     *
     * @return the state entered
     */
    private State startCheckpoint(CheckpointBarrier barrier, int channel) {
        long id = barrier.checkpointId();
        long nowNanos = context.nanoTime();
        PendingBarriers started = startPending(barrier, channel, nowNanos);
        if (barrier.options().isUnaligned()) {
            int[] missing = started.missingChannels(channels);
            BarrierAlignment alignment = started.alignment(nowNanos, bytesProcessed);
            State next;
            if (missing.length == 0) {
                ids.markFinished(id);
                next = state.current(); // the only channel: done at once, still waiting
            } else {
                next = state.enter(new CollectingUnaligned(started));
            }
            log.debug("Task {}: unaligned barrier of checkpoint {} on channel {}: triggering, persisting channels {}",
                    taskName, id, channel, Arrays.toString(missing));
            context.triggerCheckpointOnBarrier(barrier, alignment);
            context.startPersistingInflight(id, missing);
            return next;
        }
        CollectingAligned aligned = state.enter(new CollectingAligned(started));
        if (started.isComplete(channels)) {
            return completeAlignment(started);
        }
        started.markBlocked();
        context.blockChannel(channel);
        if (AlignmentTimeout.appliesTo(barrier)) {
            context.registerAlignmentTimer(id, AlignmentTimeout.timerDelayMs(started));
        }
        return aligned;
    }

    /**
     * Every channel delivered the barrier of {@code done}: moves to waiting, resumes all and triggers.
     *
     * @return the state entered: waiting
     */
    private State completeAlignment(PendingBarriers done) {
        BarrierAlignment alignment = done.alignment(context.nanoTime(), bytesProcessed);
        ids.markFinished(done.checkpointId());
        State next = state.enter(WAITING);
        log.debug("Task {}: barriers of checkpoint {} aligned: {}", taskName, done.checkpointId(), alignment);
        // Resume before trigger, as AlignedBarrierHandler does (see its completeAlignment): both run
        // on the task thread, so no record is processed in between.
        if (done.hasBlockedChannels()) {
            context.resumeAllChannels();
        }
        context.triggerCheckpointOnBarrier(done.barrier(), alignment);
        return next;
    }

    /**
     * COLLECTING_ALIGNED → COLLECTING_UNALIGNED (or WAITING if no channel is missing).
     *
     * @return the state entered
     */
    private State switchToUnaligned(PendingBarriers switched, String cause) {
        long id = switched.checkpointId();
        BarrierAlignment alignment = switched.alignment(context.nanoTime(), bytesProcessed);
        int[] missing = switched.missingChannels(channels);
        boolean resume = switched.hasBlockedChannels();
        switched.markResumed();
        State next;
        if (missing.length == 0) {
            ids.markFinished(id);
            next = state.enter(WAITING);
        } else {
            next = state.enter(new CollectingUnaligned(switched));
        }
        log.debug("Task {}: checkpoint {} switches to unaligned ({}) after {} ns; persisting channels {}",
                taskName, id, cause, alignment.alignmentDurationNanos(), Arrays.toString(missing));
        if (resume) {
            context.resumeAllChannels();
        }
        context.triggerCheckpointOnBarrier(switched.barrier().asUnaligned(), alignment);
        context.startPersistingInflight(id, missing);
        for (int channel : missing) {
            context.requestPriorityBarrier(id, channel);
        }
        return next;
    }

    /** @return waiting if every channel delivered the barrier of the unaligned checkpoint, else {@code unaligned} */
    private State finishUnalignedIfComplete(CollectingUnaligned unaligned) {
        if (!unaligned.pending().isComplete(channels)) {
            return unaligned;
        }
        long id = unaligned.pending().checkpointId();
        ids.markFinished(id);
        State next = state.enter(WAITING);
        log.debug("Task {}: all barriers of unaligned checkpoint {} arrived", taskName, id);
        return next;
    }

    @Override
    protected PendingBarriers inProgress() {
        if (state.current() instanceof CollectingAligned aligned) {
            return aligned.pending();
        }
        return state.current() instanceof CollectingUnaligned unaligned ? unaligned.pending() : null;
    }

    @Override
    protected boolean isClosed() {
        return state.current() == CLOSED;
    }

    @Override
    protected void enterWaitingForFirstBarrier() {
        state.enter(WAITING);
    }

    /**
     * @throws IllegalStateException naming both states if {@code from → to} is not allowed
     */
    static void checkTransition(String taskName, Phase from, Phase to) {
        HandlerStateMachine.checkTransition(taskName, from, to);
    }
}
