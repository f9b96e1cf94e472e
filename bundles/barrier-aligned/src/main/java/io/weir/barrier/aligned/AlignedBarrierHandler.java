package io.weir.barrier.aligned;

import io.weir.core.barrier.AlignmentMeasurement;
import io.weir.core.barrier.BarrierAlignment;
import io.weir.core.barrier.BarrierHandlerContext;
import io.weir.core.barrier.CheckpointBarrierHandler;
import io.weir.core.barrier.InputChannelSet;
import io.weir.core.barrier.PendingBarriers;
import io.weir.core.barrier.StaleCheckpointFilter;
import io.weir.core.checkpoint.CancelCheckpointMarker;
import io.weir.core.checkpoint.CheckpointBarrier;
import io.weir.core.checkpoint.CheckpointFailureReason;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

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
public final class AlignedBarrierHandler implements CheckpointBarrierHandler {
    private static final Logger LOG = LoggerFactory.getLogger(AlignedBarrierHandler.class);

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

    private final BarrierHandlerContext context;
    private final String taskName;
    /** Live/ended channels. Task thread only. */
    private final InputChannelSet channels;
    /** Ids seen and triggered or aborted here; decides which barriers are stale. Task thread only. */
    private final StaleCheckpointFilter ids = new StaleCheckpointFilter();
    /** Current state. Task thread only. */
    private Phase phase = Phase.WAITING_FOR_FIRST_BARRIER;
    /** The alignment in progress: non-null exactly in COLLECTING_BARRIERS. Task thread only. */
    private PendingBarriers pending;
    /** Running total of bytes processed (bytes); alignments take differences. Task thread only. */
    private long bytesProcessed;

    /**
     * @param context the task's channels and checkpoint actions; {@code numberOfInputChannels()}
     *     is read once, here
     * @param taskName for logs and error messages
     * @throws IllegalArgumentException if the context reports fewer than one input channel
     * @throws NullPointerException if an argument is null
     */
    public AlignedBarrierHandler(BarrierHandlerContext context, String taskName) {
        this.context = Objects.requireNonNull(context, "context");
        this.taskName = Objects.requireNonNull(taskName, "taskName");
        this.channels = new InputChannelSet(taskName, context.numberOfInputChannels());
    }

    /**
     * Handles the barrier of checkpoint <i>n</i> from {@code channel}: ignores it if stale, aborts
     * an older alignment as {@link CheckpointFailureReason#CHECKPOINT_SUBSUMED} if <i>n</i> is
     * newer, blocks the channel, or, if it is the last live channel missing, resumes all channels
     * and triggers the checkpoint with the measured {@link BarrierAlignment}.
     *
     * @throws IllegalArgumentException if {@code channel} is out of range
     * @throws IllegalStateException if the handler is closed, the channel already ended, or the
     *     channel delivers the barrier of the checkpoint being aligned twice
     */
    @Override
    public void processBarrier(CheckpointBarrier barrier, int channel) {
        Objects.requireNonNull(barrier, "barrier");
        long id = barrier.checkpointId();
        requireOpen("barrier of checkpoint " + id + " on channel " + channel);
        channels.requireLive(channel, "barrier of checkpoint " + id);
        ids.observe(id);
        if (ids.isStale(id, pending)) {
            LOG.debug("Task {}: ignoring stale barrier of checkpoint {} on channel {} (last finished {}, aligning {})",
                    taskName, id, channel, ids.lastFinishedId(), pending == null ? "none" : pending.checkpointId());
            return;
        }
        long now = context.nanoTime();
        if (pending != null && id > pending.checkpointId()) {
            LOG.debug("Task {}: barrier of checkpoint {} on channel {} subsumes alignment of checkpoint {}",
                    taskName, id, channel, pending.checkpointId());
            abortAlignment(CheckpointFailureReason.CHECKPOINT_SUBSUMED);
        }
        if (pending == null) {
            pending = new PendingBarriers(taskName, barrier,
                    AlignmentMeasurement.start(barrier, now, context.currentTimeMillis(), bytesProcessed));
            transitionTo(Phase.COLLECTING_BARRIERS);
        }
        pending.markDelivered(channel);
        if (pending.isComplete(channels)) {
            completeAlignment(now);
        } else {
            pending.markBlocked();
            context.blockChannel(channel);
        }
    }

    /**
     * Handles a cancel marker for checkpoint <i>n</i>: if aligning <i>n</i>, resumes all channels
     * and aborts <i>n</i> with {@link CheckpointFailureReason#CHECKPOINT_DECLINED_ON_CANCELLATION_BARRIER};
     * if aligning an older checkpoint, aborts that one as subsumed first; if <i>n</i> is newer than
     * anything seen, aborts <i>n</i> and remembers it so its later barriers are ignored. Each
     * checkpoint is aborted once: duplicates (one marker per channel) and markers for older
     * checkpoints are ignored.
     *
     * @throws IllegalArgumentException if {@code channel} is out of range
     * @throws IllegalStateException if the handler is closed or the channel already ended
     */
    @Override
    public void processCancellationBarrier(CancelCheckpointMarker marker, int channel) {
        Objects.requireNonNull(marker, "marker");
        long id = marker.checkpointId();
        requireOpen("cancel marker of checkpoint " + id + " on channel " + channel);
        channels.requireLive(channel, "cancel marker of checkpoint " + id);
        ids.observe(id);
        if (ids.isStale(id, pending)) {
            LOG.debug("Task {}: ignoring cancel marker of checkpoint {} on channel {} (last finished {}, aligning {})",
                    taskName, id, channel, ids.lastFinishedId(), pending == null ? "none" : pending.checkpointId());
            return;
        }
        if (pending != null && pending.checkpointId() == id) {
            abortAlignment(CheckpointFailureReason.CHECKPOINT_DECLINED_ON_CANCELLATION_BARRIER);
            return;
        }
        if (pending != null) {
            // Aligning an older checkpoint: it can no longer complete before the newer one, and the
            // coordinator should hear about it, exactly as when a newer barrier arrives.
            abortAlignment(CheckpointFailureReason.CHECKPOINT_SUBSUMED);
        }
        LOG.debug("Task {}: cancel marker of checkpoint {} on channel {} before any of its barriers",
                taskName, id, channel);
        ids.markFinished(id);
        context.abortCheckpointOnBarrier(id, CheckpointFailureReason.CHECKPOINT_DECLINED_ON_CANCELLATION_BARRIER);
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
            LOG.debug("Task {}: end of partition on channel {} completes alignment of checkpoint {}",
                    taskName, channel, pending.checkpointId());
            completeAlignment(context.nanoTime());
        }
    }

    /**
     * Adds {@code bytes} to the running total; an alignment reports the bytes processed between its
     * first and last barrier.
     *
     * @throws IllegalArgumentException if {@code bytes} is negative
     */
    @Override
    public void onBytesProcessed(long bytes) {
        if (bytes < 0) {
            throw new IllegalArgumentException("task " + taskName + ": processed bytes must be >= 0, got " + bytes);
        }
        bytesProcessed += bytes;
    }

    /** @return the highest checkpoint id of any barrier or cancel marker seen (stale ones too), 0 if none */
    @Override
    public long latestCheckpointId() {
        return ids.latestSeenId();
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
            LOG.debug("Task {}: closing while aligning checkpoint {}", taskName, pending.checkpointId());
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
        LOG.debug("Task {}: barriers of checkpoint {} aligned: {}", taskName, done.checkpointId(), alignment);
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

    private void abortAlignment(CheckpointFailureReason reason) {
        PendingBarriers aborted = pending;
        pending = null;
        ids.markFinished(aborted.checkpointId());
        transitionTo(Phase.WAITING_FOR_FIRST_BARRIER);
        LOG.debug("Task {}: aborting alignment of checkpoint {}: {}", taskName, aborted.checkpointId(), reason);
        if (aborted.hasBlockedChannels()) {
            context.resumeAllChannels();
        }
        context.abortCheckpointOnBarrier(aborted.checkpointId(), reason);
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

    private void requireOpen(String event) {
        if (phase == Phase.CLOSED) {
            throw new IllegalStateException(
                    "task " + taskName + ": cannot process " + event + ", handler is " + Phase.CLOSED);
        }
    }
}
