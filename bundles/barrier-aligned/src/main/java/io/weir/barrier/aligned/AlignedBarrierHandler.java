package io.weir.barrier.aligned;

import io.weir.core.barrier.AbstractExactlyOnceBarrierHandler;
import io.weir.core.barrier.BarrierAlignment;
import io.weir.core.barrier.BarrierHandlerContext;
import io.weir.core.barrier.HandlerStateMachine;
import io.weir.core.barrier.PendingBarriers;
import io.weir.core.checkpoint.CheckpointBarrier;

/**
 * The aligned barrier handler of EXACTLY_ONCE mode (PROTOCOL.md §4; modelled on Flink's
 * {@code SingleCheckpointBarrierHandler} with aligned states): each channel that delivered the
 * barrier of checkpoint <i>n</i> is blocked until every channel has delivered it, then the
 * task snapshots and all channels resume.
 *
 * <pre>
 *   WAITING_FOR_FIRST_BARRIER ── barrier n, other channels missing: block ──► COLLECTING_BARRIERS(n)
 *   WAITING_FOR_FIRST_BARRIER ── barrier n, the only channel: trigger ──► (stays)
 *   COLLECTING_BARRIERS(n) ── barrier n, other channels missing: block ──► (stays)
 *   COLLECTING_BARRIERS(n) ── last channel's barrier n: resume all, trigger ──► WAITING_FOR_FIRST_BARRIER
 *   COLLECTING_BARRIERS(n) ── barrier m &gt; n: resume all, abort n (subsumed) ──► WAITING ──► align m
 *   COLLECTING_BARRIERS(n) ── cancel marker m ≥ n: resume all, abort ──► WAITING_FOR_FIRST_BARRIER
 *   any ── close() ──► CLOSED (terminal; every later event throws IllegalStateException)
 * </pre>
 *
 * <p>Rules: a barrier or cancel marker whose id is at most the last triggered or aborted
 * checkpoint, or older than the one being aligned, is stale and ignored. A cancel marker for a
 * checkpoint newer than anything seen aborts it at once and makes its later barriers stale.
 *
 * <p>Thread confinement: one instance per task, every method on the task thread only; no locks.
 */
public final class AlignedBarrierHandler extends AbstractExactlyOnceBarrierHandler {
    /** States of the handler; {@link #canTransitionTo} is the single transition table. */
    enum Phase implements HandlerStateMachine.Phase<Phase> {
        /** No checkpoint in progress; no channel blocked. */
        WAITING_FOR_FIRST_BARRIER,
        /** Some but not all channels delivered the barrier; those are blocked. */
        COLLECTING_BARRIERS,
        /** The task shut down; terminal. */
        CLOSED;

        /** @return whether the handler may move from this state to {@code next} */
        @Override
        public boolean canTransitionTo(Phase next) {
            return switch (this) {
                case WAITING_FOR_FIRST_BARRIER -> next == COLLECTING_BARRIERS || next == CLOSED;
                case COLLECTING_BARRIERS -> next == WAITING_FOR_FIRST_BARRIER || next == CLOSED;
                case CLOSED -> false;
            };
        }
    }

    /**
     * A state of the handler, carrying what is valid in it: only a collecting state has a checkpoint in progress.
     * Every event computes the next state from the current one; {@link HandlerStateMachine#enter} checks the move against
     * {@link Phase#canTransitionTo}.
     */
    sealed interface State extends HandlerStateMachine.State<Phase> permits Idle, CollectingBarriers {
    }

    /**
     * A state without a checkpoint in progress: waiting for a first barrier (nothing blocked or recorded), or closed.
     *
     * @param phase WAITING_FOR_FIRST_BARRIER or CLOSED
     */
    record Idle(Phase phase) implements State {
    }

    /**
     * Aligning checkpoint {@code pending}: some but not all channels delivered its barrier; those are blocked.
     *
     * @param pending the checkpoint in progress: its barrier, delivered channels and alignment measurement
     */
    record CollectingBarriers(PendingBarriers pending) implements State {
        @Override
        public Phase phase() {
            return Phase.COLLECTING_BARRIERS;
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
    public AlignedBarrierHandler(BarrierHandlerContext context, String taskName) {
        super(context, taskName);
        this.state = new HandlerStateMachine<>(taskName, WAITING);
    }

    /** Starts aligning checkpoint <i>n</i>: block the channel, or trigger at once if it is the only one. */
    @Override
    protected void onFirstBarrier(CheckpointBarrier barrier, int channel) {
        long now = context.nanoTime();
        CollectingBarriers started = state.enter(new CollectingBarriers(startPending(barrier, channel, now)));
        state.enter(barrierCounted(started, channel, now));
    }

    @Override
    protected void onFurtherBarrier(CheckpointBarrier barrier, int channel) {
        state.enter(barrierCounted(collecting("barrier of checkpoint " + barrier.checkpointId()), channel, context.nanoTime()));
    }

    /**
     * A barrier of the checkpoint being aligned came from {@code channel} (already marked delivered).
     *
     * @return the next state: {@code collecting} while channels are missing (the channel is blocked), else
     *         waiting for the next first barrier (the alignment completed)
     */
    private State barrierCounted(CollectingBarriers collecting, int channel, long nowNanos) {
        PendingBarriers pending = collecting.pending();
        if (pending.isComplete(channels)) {
            return completeAlignment(pending, nowNanos);
        }
        pending.markBlocked();
        context.blockChannel(channel);
        return collecting;
    }

    /** @return whether the handler is in COLLECTING_BARRIERS */
    @Override
    public boolean isAligning() {
        return state.current() instanceof CollectingBarriers;
    }

    /**
     * Abandons the alignment in progress, if any, without aborting it (the task is going away),
     * moves to CLOSED and resumes blocked channels. Idempotent.
     */
    @Override
    public void close() {
        if (state.current() == CLOSED) {
            return;
        }
        State left = state.current();
        state.enter(CLOSED);
        if (left instanceof CollectingBarriers collecting) {
            log.debug("Task {}: closing while aligning checkpoint {}", taskName, collecting.pending().checkpointId());
            if (collecting.pending().hasBlockedChannels()) {
                context.resumeAllChannels();
            }
        }
    }

    /** @return the current state's phase, for tests */
    Phase phase() {
        return state.current().phase();
    }

    /**
     * Every channel delivered the barrier of {@code done}: moves to waiting (before calling out, so a
     * trigger that throws leaves the handler consistent), resumes all and triggers.
     *
     * @return the state entered: waiting for the next first barrier
     */
    private State completeAlignment(PendingBarriers done, long nowNanos) {
        BarrierAlignment alignment = done.alignment(nowNanos, bytesProcessed);
        ids.markFinished(done.checkpointId());
        State next = state.enter(WAITING);
        log.debug("Task {}: barriers of checkpoint {} aligned: {}", taskName, done.checkpointId(), alignment);
        // Resume first, then trigger (Flink does the reverse). Both run on the task thread, so no
        // record is processed in between either way: data arriving on resumed channels waits in
        // the input buffers until the trigger returns, and it is post-barrier data, which the
        // snapshot (operator state only) never contains. Resuming first lets upstream restart
        // sending while the synchronous snapshot runs, and if the trigger throws the handler is
        // already consistent (WAITING, nothing blocked) instead of leaving channels blocked.
        if (done.hasBlockedChannels()) {
            context.resumeAllChannels();
        }
        context.triggerCheckpointOnBarrier(done.barrier(), alignment);
        return next;
    }

    /**
     * @return the current state, which the base class guarantees is collecting when it reports a further barrier
     * @throws IllegalStateException naming the state otherwise (a bug)
     */
    private CollectingBarriers collecting(String event) {
        if (state.current() instanceof CollectingBarriers collecting) {
            return collecting;
        }
        throw new IllegalStateException("task " + taskName + ": " + event + " counted in state " + state.current().phase());
    }

    @Override
    protected PendingBarriers inProgress() {
        return state.current() instanceof CollectingBarriers collecting ? collecting.pending() : null;
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
