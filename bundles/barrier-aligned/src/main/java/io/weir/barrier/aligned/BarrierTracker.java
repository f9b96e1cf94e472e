package io.weir.barrier.aligned;

import io.weir.core.barrier.AlignmentMeasurement;
import io.weir.core.barrier.BarrierAlignment;
import io.weir.core.barrier.BarrierHandlerContext;
import io.weir.core.barrier.CheckpointBarrierHandler;
import io.weir.core.barrier.InputChannelSet;
import io.weir.core.barrier.PendingBarriers;
import io.weir.core.checkpoint.CancelCheckpointMarker;
import io.weir.core.checkpoint.CheckpointBarrier;
import io.weir.core.checkpoint.CheckpointFailureReason;
import java.util.ArrayDeque;
import java.util.Iterator;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The barrier tracker of AT_LEAST_ONCE mode (PROTOCOL.md §4; modelled on Flink's
 * {@code CheckpointBarrierTracker}): never blocks a channel, counts the barriers of each
 * checkpoint and triggers it when the last channel delivered its barrier. Records read from a
 * channel after its barrier are in the snapshot's past and may be replayed on restore, hence "at
 * least once".
 *
 * <p>Several checkpoints may be in progress; they are kept in ascending id order. When checkpoint
 * <i>n</i> triggers, every older one still in progress can no longer matter and is aborted with
 * {@link CheckpointFailureReason#CHECKPOINT_SUBSUMED} so the coordinator learns at once. A cancel
 * marker aborts its checkpoint with {@link CheckpointFailureReason#CHECKPOINT_DECLINED_ON_CANCELLATION_BARRIER}.
 * Barriers and markers of checkpoints already triggered or aborted are ignored. At most
 * {@value #MAX_TRACKED_CHECKPOINTS} checkpoints are tracked; beyond that the oldest is aborted as
 * subsumed.
 *
 * <p>Thread confinement: one instance per task, every method on the task thread only; no locks.
 */
public final class BarrierTracker implements CheckpointBarrierHandler {
    /** Upper bound on checkpoints tracked at once (as Flink's tracker), so a dead channel cannot grow memory. */
    static final int MAX_TRACKED_CHECKPOINTS = 50;

    private static final Logger LOG = LoggerFactory.getLogger(BarrierTracker.class);

    private final BarrierHandlerContext context;
    private final String taskName;
    /** The task's input channels. Immutable. */
    private final InputChannelSet channels;
    /** Checkpoints in progress, ascending by id. Task thread only. */
    private final ArrayDeque<PendingBarriers> inProgress = new ArrayDeque<>();
    /** Highest id that started, triggered or was aborted here; an id not in progress and ≤ it is stale. Task thread only. */
    private long latestStartedCheckpointId;
    /** Highest id of any barrier or cancel marker seen, 0 if none. Task thread only. */
    private long latestCheckpointId;
    /** Running total of bytes processed (bytes). Task thread only. */
    private long bytesProcessed;
    /** Whether {@link #close()} ran. Task thread only. */
    private boolean closed;

    /**
     * @param context the task's channels and checkpoint actions; {@code numberOfInputChannels()}
     *     is read once, here
     * @param taskName for logs and error messages
     * @throws IllegalArgumentException if the context reports fewer than one input channel
     * @throws NullPointerException if an argument is null
     */
    public BarrierTracker(BarrierHandlerContext context, String taskName) {
        this.context = Objects.requireNonNull(context, "context");
        this.taskName = Objects.requireNonNull(taskName, "taskName");
        this.channels = new InputChannelSet(taskName, context.numberOfInputChannels());
    }

    /**
     * Counts the barrier; triggers its checkpoint (aborting older ones still in progress as
     * subsumed) if every channel has now delivered it. Never blocks.
     *
     * @throws IllegalArgumentException if {@code channel} is out of range
     * @throws IllegalStateException if the tracker is closed, or it
     *     delivers the barrier of a checkpoint in progress twice
     */
    @Override
    public void processBarrier(CheckpointBarrier barrier, int channel) {
        Objects.requireNonNull(barrier, "barrier");
        long id = barrier.checkpointId();
        requireOpen("barrier of checkpoint " + id + " on channel " + channel);
        channels.checkIndex(channel);
        latestCheckpointId = Math.max(latestCheckpointId, id);
        long now = context.nanoTime();
        PendingBarriers checkpoint = find(id);
        if (checkpoint == null) {
            if (id <= latestStartedCheckpointId) {
                LOG.debug("Task {}: ignoring barrier of finished checkpoint {} on channel {}", taskName, id, channel);
                return;
            }
            checkpoint = new PendingBarriers(taskName, barrier,
                    AlignmentMeasurement.start(barrier, now, context.currentTimeMillis(), bytesProcessed));
            inProgress.addLast(checkpoint);
            latestStartedCheckpointId = id;
            if (inProgress.size() > MAX_TRACKED_CHECKPOINTS) {
                PendingBarriers oldest = inProgress.removeFirst();
                LOG.warn("Task {}: more than {} checkpoints in progress, dropping checkpoint {}",
                        taskName, MAX_TRACKED_CHECKPOINTS, oldest.checkpointId());
                context.abortCheckpointOnBarrier(oldest.checkpointId(), CheckpointFailureReason.CHECKPOINT_SUBSUMED);
            }
        }
        checkpoint.markDelivered(channel);
        if (checkpoint.isComplete(channels)) {
            triggerUpTo(checkpoint, now);
        }
    }

    /**
     * Aborts checkpoint <i>n</i> once with {@link CheckpointFailureReason#CHECKPOINT_DECLINED_ON_CANCELLATION_BARRIER}
     * if it is in progress or newer than anything seen (its later barriers are then ignored);
     * ignores markers of checkpoints already triggered or aborted. Older checkpoints in progress
     * are left alone: they may still complete.
     *
     * @throws IllegalArgumentException if {@code channel} is out of range
     * @throws IllegalStateException if the tracker is closed
     */
    @Override
    public void processCancellationBarrier(CancelCheckpointMarker marker, int channel) {
        Objects.requireNonNull(marker, "marker");
        long id = marker.checkpointId();
        requireOpen("cancel marker of checkpoint " + id + " on channel " + channel);
        channels.checkIndex(channel);
        latestCheckpointId = Math.max(latestCheckpointId, id);
        PendingBarriers checkpoint = find(id);
        if (checkpoint != null) {
            inProgress.remove(checkpoint);
        } else if (id <= latestStartedCheckpointId) {
            LOG.debug("Task {}: ignoring cancel marker of finished checkpoint {} on channel {}", taskName, id, channel);
            return;
        } else {
            latestStartedCheckpointId = id;
        }
        LOG.debug("Task {}: cancel marker of checkpoint {} on channel {}", taskName, id, channel);
        context.abortCheckpointOnBarrier(id, CheckpointFailureReason.CHECKPOINT_DECLINED_ON_CANCELLATION_BARRIER);
    }

    /**
     * Adds {@code bytes} to the running total; each checkpoint reports the bytes processed between
     * its first and last barrier.
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

    /** @return the highest checkpoint id of any barrier or cancel marker seen, 0 if none */
    @Override
    public long latestCheckpointId() {
        return latestCheckpointId;
    }

    /** @return whether some checkpoint has received some but not all of its barriers */
    @Override
    public boolean isAligning() {
        return !inProgress.isEmpty();
    }

    /** Forgets the checkpoints in progress (nothing is blocked, nothing to resume). Idempotent. */
    @Override
    public void close() {
        inProgress.clear();
        closed = true;
    }

    /** Triggers {@code target} after draining every older checkpoint from the in-progress queue. */
    private void triggerUpTo(PendingBarriers target, long nowNanos) {
        Iterator<PendingBarriers> it = inProgress.iterator();
        while (it.hasNext()) {
            PendingBarriers checkpoint = it.next();
            if (checkpoint.checkpointId() > target.checkpointId()) {
                break;
            }
            it.remove();
            if (checkpoint == target || checkpoint.isComplete(channels)) {
                trigger(checkpoint, nowNanos);
            } else {
                LOG.debug("Task {}: checkpoint {} subsumed by checkpoint {}",
                        taskName, checkpoint.checkpointId(), target.checkpointId());
                context.abortCheckpointOnBarrier(checkpoint.checkpointId(), CheckpointFailureReason.CHECKPOINT_SUBSUMED);
            }
        }
    }

    private void trigger(PendingBarriers checkpoint, long nowNanos) {
        BarrierAlignment alignment = checkpoint.alignment(nowNanos, bytesProcessed);
        LOG.debug("Task {}: all barriers of checkpoint {} received: {}", taskName, checkpoint.checkpointId(), alignment);
        context.triggerCheckpointOnBarrier(checkpoint.barrier(), alignment);
    }

    private PendingBarriers find(long checkpointId) {
        for (PendingBarriers checkpoint : inProgress) {
            if (checkpoint.checkpointId() == checkpointId) {
                return checkpoint;
            }
        }
        return null;
    }

    private void requireOpen(String event) {
        if (closed) {
            throw new IllegalStateException("task " + taskName + ": cannot process " + event + ", tracker is closed");
        }
    }
}
