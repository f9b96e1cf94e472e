package io.weir.barrier.aligned;

import io.weir.core.barrier.AbstractExactlyOnceBarrierHandler;
import io.weir.core.barrier.BarrierAlignment;
import io.weir.core.barrier.BarrierHandlerContext;
import io.weir.core.barrier.PendingBarriers;
import io.weir.core.checkpoint.CheckpointBarrier;

/**
 * The aligned barrier handler of EXACTLY_ONCE mode (PROTOCOL.md §4; modelled on Flink's
 * {@code SingleCheckpointBarrierHandler} with aligned states): each channel that delivered the
 * barrier of checkpoint <i>n</i> is blocked until every live channel has delivered it, then the
 * task snapshots and all channels resume.
 *
 * <pre>
 *   WAITING_FOR_FIRST_BARRIER ── barrier n, other live channels missing: block ──► COLLECTING_BARRIERS(n)
 *   WAITING_FOR_FIRST_BARRIER ── barrier n, the only live channel: trigger ──► (stays)
 *   COLLECTING_BARRIERS(n) ── barrier n, other live channels missing: block ──► (stays)
 *   COLLECTING_BARRIERS(n) ── last live channel's barrier n, or end of partition of it:
 *                              resume all, trigger ──► WAITING_FOR_FIRST_BARRIER
 *   COLLECTING_BARRIERS(n) ── barrier m &gt; n: resume all, abort n (subsumed) ──► WAITING ──► align m
 *   COLLECTING_BARRIERS(n) ── cancel marker m ≥ n: resume all, abort ──► WAITING_FOR_FIRST_BARRIER
 *   any ── close() ──► CLOSED (terminal; every later event throws IllegalStateException)
 * </pre>
 *
 * <p>Rules: a barrier or cancel marker whose id is at most the last triggered or aborted
 * checkpoint, or older than the one being aligned, is stale and ignored. A cancel marker for a
 * checkpoint newer than anything seen aborts it at once and makes its later barriers stale. A
 * channel that ended (end of partition) is never waited for again.
 *
 * <p>Thread confinement: one instance per task, every method on the task thread only; no locks.
 */
public final class AlignedBarrierHandler extends AbstractExactlyOnceBarrierHandler {
    /** States of the handler; {@link #canTransitionTo} is the single transition table. */
    enum Phase {
        /** No checkpoint in progress; no channel blocked. */
        WAITING_FOR_FIRST_BARRIER,
        /** Some but not all live channels delivered the barrier; those are blocked. */
        COLLECTING_BARRIERS,
        /** The task shut down; terminal. */
        CLOSED;

        /** @return whether the handler may move from this state to {@code next} */
        boolean canTransitionTo(Phase next) {
            return switch (this) {
                case WAITING_FOR_FIRST_BARRIER -> next == COLLECTING_BARRIERS || next == CLOSED;
                case COLLECTING_BARRIERS -> next == WAITING_FOR_FIRST_BARRIER || next == CLOSED;
                case CLOSED -> false;
            };
        }
    }

    /** Current state. Task thread only. */
    private Phase phase = Phase.WAITING_FOR_FIRST_BARRIER;

    /**
     * @param context the task's channels and checkpoint actions; {@code numberOfInputChannels()}
     *     is read once, here
     * @param taskName for logs and error messages
     * @throws IllegalArgumentException if the context reports fewer than one input channel
     * @throws NullPointerException if an argument is null
     */
    public AlignedBarrierHandler(BarrierHandlerContext context, String taskName) {
        super(context, taskName);
    }

    /** Starts aligning checkpoint <i>n</i>: block the channel, or trigger at once if it is the only live one. */
    @Override
    protected void onFirstBarrier(CheckpointBarrier barrier, int channel) {
        long now = context.nanoTime();
        startPending(barrier, channel, now);
        transitionTo(Phase.COLLECTING_BARRIERS);
        continueAlignment(channel, now);
    }

    @Override
    protected void onFurtherBarrier(CheckpointBarrier barrier, int channel) {
        continueAlignment(channel, context.nanoTime());
    }

    private void continueAlignment(int channel, long nowNanos) {
        if (pending.isComplete(channels)) {
            completeAlignment(nowNanos);
        } else {
            pending.markBlocked();
            context.blockChannel(channel);
        }
    }

    /**
     * {@code channel} ended: it is never waited for again. If an alignment is in progress and every
     * remaining live channel has delivered its barrier, the alignment completes now.
     *
     * @throws IllegalArgumentException if {@code channel} is out of range
     * @throws IllegalStateException if the handler is closed or the channel already ended
     */
    @Override
    public void processEndOfPartition(int channel) {
        requireOpen("end of partition on channel " + channel);
        channels.markEnded(channel);
        if (pending != null && pending.isComplete(channels)) {
            log.debug("Task {}: end of partition on channel {} completes alignment of checkpoint {}",
                    taskName, channel, pending.checkpointId());
            completeAlignment(context.nanoTime());
        }
    }

    /** @return whether the handler is in COLLECTING_BARRIERS */
    @Override
    public boolean isAligning() {
        return phase == Phase.COLLECTING_BARRIERS;
    }

    /**
     * Abandons the alignment in progress, if any, without aborting it (the task is going away),
     * resumes blocked channels and moves to CLOSED. Idempotent.
     */
    @Override
    public void close() {
        if (phase == Phase.CLOSED) {
            return;
        }
        if (pending != null) {
            log.debug("Task {}: closing while aligning checkpoint {}", taskName, pending.checkpointId());
            boolean resume = pending.hasBlockedChannels();
            pending = null;
            if (resume) {
                context.resumeAllChannels();
            }
        }
        transitionTo(Phase.CLOSED);
    }

    /** @return the current state, for tests */
    Phase phase() {
        return phase;
    }

    private void completeAlignment(long nowNanos) {
        PendingBarriers done = pending;
        BarrierAlignment alignment = done.alignment(nowNanos, bytesProcessed);
        pending = null;
        ids.markFinished(done.checkpointId());
        transitionTo(Phase.WAITING_FOR_FIRST_BARRIER);
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
    }

    @Override
    protected boolean isClosed() {
        return phase == Phase.CLOSED;
    }

    @Override
    protected void enterWaitingForFirstBarrier() {
        transitionTo(Phase.WAITING_FOR_FIRST_BARRIER);
    }

    private void transitionTo(Phase next) {
        checkTransition(taskName, phase, next);
        phase = next;
    }

    /**
     * @throws IllegalStateException naming both states if {@code from → to} is not allowed
     */
    static void checkTransition(String taskName, Phase from, Phase to) {
        if (!from.canTransitionTo(to)) {
            throw new IllegalStateException(
                    "task " + taskName + ": illegal barrier handler transition " + from + " -> " + to);
        }
    }
}
