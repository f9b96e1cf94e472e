package io.weir.core.barrier;

import io.weir.core.checkpoint.CancelCheckpointMarker;
import io.weir.core.checkpoint.CheckpointBarrier;
import io.weir.core.checkpoint.CheckpointFailureReason;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.Objects;

/**
 * What every EXACTLY_ONCE barrier handler does the same way (PROTOCOL.md §4, §6), so that the aligned
 * handler and the unaligned one (separate bundles, which may not depend on each other) differ only in
 * what they do with a barrier that counts:
 * <ul>
 *   <li>a barrier: checks the channel, ignores it if stale ({@link StaleCheckpointFilter}), aborts an
 *       older checkpoint in progress as {@link CheckpointFailureReason#CHECKPOINT_SUBSUMED}, then
 *       hands it to {@link #onFirstBarrier} (no checkpoint in progress) or, after marking the channel
 *       delivered, to {@link #onFurtherBarrier};</li>
 *   <li>a cancel marker for checkpoint <i>n</i>: aborts <i>n</i> if it is in progress
 *       ({@link CheckpointFailureReason#CHECKPOINT_DECLINED_ON_CANCELLATION_BARRIER}); if an older one
 *       is in progress, aborts that one as subsumed first; if <i>n</i> is newer than anything seen,
 *       aborts <i>n</i> at once and remembers it so that its later barriers are stale. Each checkpoint
 *       is aborted once: duplicates (one marker per channel) and markers for older checkpoints are
 *       ignored;</li>
 *   <li>the running total of processed bytes, from which a checkpoint reports the bytes processed
 *       between its first barrier and its trigger (PROTOCOL.md §5).</li>
 * </ul>
 * Subclasses keep their own state machine, whose states carry what is valid in them (the checkpoint in
 * progress lives in the collecting states, not in a field of this class), and say through {@link #inProgress},
 * {@link #isClosed} and {@link #enterWaitingForFirstBarrier} where it stands.
 *
 * <p>Thread confinement: one instance per task; every method, and every field below, on the task
 * thread only; no locks.
 */
public abstract class AbstractExactlyOnceBarrierHandler implements CheckpointBarrierHandler {
    /** The subclass's logger, so that log lines name the concrete handler. */
    protected final Logger log = LoggerFactory.getLogger(getClass());
    /** The task's channels and checkpoint actions. */
    protected final BarrierHandlerContext context;
    /** For logs and error messages. */
    protected final String taskName;
    /** The task's input channels. */
    protected final InputChannelSet channels;
    /** Ids seen and triggered (finished) or aborted here; decides which barriers are stale. */
    protected final StaleCheckpointFilter ids = new StaleCheckpointFilter();
    /** Running total of bytes processed (bytes); a checkpoint reports differences. */
    protected long bytesProcessed;

    /**
     * @param context the task's channels and checkpoint actions; {@code numberOfInputChannels()} is
     *     read once, here
     * @param taskName for logs and error messages
     * @throws IllegalArgumentException if the context reports fewer than one input channel
     * @throws NullPointerException if an argument is null
     */
    protected AbstractExactlyOnceBarrierHandler(BarrierHandlerContext context, String taskName) {
        this.context = Objects.requireNonNull(context, "context");
        this.taskName = Objects.requireNonNull(taskName, "taskName");
        this.channels = new InputChannelSet(taskName, context.numberOfInputChannels());
    }

    /**
     * Handles the barrier of checkpoint <i>n</i> from {@code channel}: ignores it if stale, aborts an
     * older checkpoint in progress as subsumed if <i>n</i> is newer, then starts or advances <i>n</i>
     * (see the subclass).
     *
     * @throws IllegalArgumentException if {@code channel} is out of range, or the subclass rejects
     *     the barrier's options ({@link #checkBarrier})
     * @throws IllegalStateException if the handler is closed, or the channel delivers the barrier
     *     of the checkpoint in progress twice
     */
    @Override
    public final void processBarrier(CheckpointBarrier barrier, int channel) {
        Objects.requireNonNull(barrier, "barrier");
        long id = barrier.checkpointId();
        requireOpen("barrier of checkpoint " + id + " on channel " + channel);
        channels.checkIndex(channel);
        checkBarrier(barrier, channel);
        ids.observe(id);
        PendingBarriers pending = inProgress();
        if (ids.isStale(id, pending)) {
            log.debug("Task {}: ignoring stale barrier of checkpoint {} on channel {} (last finished {}, in progress {})",
                    taskName, id, channel, ids.lastFinishedId(), pending == null ? "none" : pending.checkpointId());
            return;
        }
        if (pending != null && id > pending.checkpointId()) {
            log.debug("Task {}: barrier of checkpoint {} on channel {} subsumes checkpoint {}",
                    taskName, id, channel, pending.checkpointId());
            abortInProgress(CheckpointFailureReason.CHECKPOINT_SUBSUMED);
            pending = null;
        }
        if (pending == null) {
            onFirstBarrier(barrier, channel);
            return;
        }
        pending.markDelivered(channel);
        onFurtherBarrier(barrier, channel);
    }

    /**
     * Handles a cancel marker as the class comment describes.
     *
     * @throws IllegalArgumentException if {@code channel} is out of range
     * @throws IllegalStateException if the handler is closed
     */
    @Override
    public final void processCancellationBarrier(CancelCheckpointMarker marker, int channel) {
        Objects.requireNonNull(marker, "marker");
        long id = marker.checkpointId();
        requireOpen("cancel marker of checkpoint " + id + " on channel " + channel);
        channels.checkIndex(channel);
        ids.observe(id);
        PendingBarriers pending = inProgress();
        if (ids.isStale(id, pending)) {
            log.debug("Task {}: ignoring cancel marker of checkpoint {} on channel {} (last finished {}, in progress {})",
                    taskName, id, channel, ids.lastFinishedId(), pending == null ? "none" : pending.checkpointId());
            return;
        }
        if (pending != null && pending.checkpointId() == id) {
            abortInProgress(CheckpointFailureReason.CHECKPOINT_DECLINED_ON_CANCELLATION_BARRIER);
            return;
        }
        if (pending != null) {
            // an older checkpoint can no longer complete before the newer one; the coordinator
            // hears about it exactly as when a newer barrier arrives
            abortInProgress(CheckpointFailureReason.CHECKPOINT_SUBSUMED);
        }
        log.debug("Task {}: cancel marker of checkpoint {} on channel {} before any of its barriers", taskName, id, channel);
        ids.markFinished(id);
        context.abortCheckpointOnBarrier(id, CheckpointFailureReason.CHECKPOINT_DECLINED_ON_CANCELLATION_BARRIER);
    }

    /**
     * Adds {@code bytes} to the running total.
     *
     * @throws IllegalArgumentException if {@code bytes} is negative
     */
    @Override
    public final void onBytesProcessed(long bytes) {
        if (bytes < 0) {
            throw new IllegalArgumentException("task " + taskName + ": processed bytes must be >= 0, got " + bytes);
        }
        bytesProcessed += bytes;
    }

    /** @return the highest checkpoint id of any barrier or cancel marker seen (stale ones too), 0 if none */
    @Override
    public final long latestCheckpointId() {
        return ids.latestSeenId();
    }

    /**
     * Rejects a barrier this handler does not serve. The default accepts every barrier.
     *
     * @throws IllegalArgumentException naming the task, checkpoint and channel
     */
    protected void checkBarrier(CheckpointBarrier barrier, int channel) {
    }

    /**
     * The first counted barrier of checkpoint <i>n</i> (none in progress): start it, keeping what
     * {@link #startPending} returns in the next state. The channel is not marked delivered yet;
     * {@link #startPending} does that.
     */
    protected abstract void onFirstBarrier(CheckpointBarrier barrier, int channel);

    /** A further barrier of the checkpoint in progress; {@code channel} is already marked delivered. */
    protected abstract void onFurtherBarrier(CheckpointBarrier barrier, int channel);

    /** @return the checkpoint the current state is collecting barriers of, or null in a state without one */
    protected abstract PendingBarriers inProgress();

    /** @return whether the handler was closed (every later event then throws) */
    protected abstract boolean isClosed();

    /** Moves the subclass's state machine to waiting for a first barrier (after an abort), dropping the checkpoint in progress. */
    protected abstract void enterWaitingForFirstBarrier();

    /**
     * Starts measuring checkpoint {@code barrier} at its first barrier, from {@code channel}; the
     * subclass makes it the one in progress by entering a state that carries it.
     *
     * @return the new checkpoint in progress, with {@code channel} marked delivered
     */
    protected final PendingBarriers startPending(CheckpointBarrier barrier, int channel, long nowNanos) {
        PendingBarriers started = new PendingBarriers(taskName, barrier,
                AlignmentMeasurement.start(barrier, nowNanos, context.currentTimeMillis(), bytesProcessed));
        started.markDelivered(channel);
        return started;
    }

    /**
     * Aborts the checkpoint in progress: forgets it (its later barriers are stale), moves to
     * waiting, resumes blocked channels and tells the task ({@code abortCheckpointOnBarrier}).
     */
    protected final void abortInProgress(CheckpointFailureReason reason) {
        PendingBarriers aborted = inProgress();
        ids.markFinished(aborted.checkpointId());
        enterWaitingForFirstBarrier();
        log.debug("Task {}: aborting checkpoint {}: {}", taskName, aborted.checkpointId(), reason);
        if (aborted.hasBlockedChannels()) {
            context.resumeAllChannels();
        }
        context.abortCheckpointOnBarrier(aborted.checkpointId(), reason);
    }

    /** @throws IllegalStateException naming the task and {@code event} if the handler is closed */
    protected final void requireOpen(String event) {
        if (isClosed()) {
            throw new IllegalStateException("task " + taskName + ": cannot process " + event + ", handler is CLOSED");
        }
    }
}
