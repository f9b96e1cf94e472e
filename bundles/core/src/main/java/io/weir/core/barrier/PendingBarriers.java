package io.weir.core.barrier;

import io.weir.core.checkpoint.CheckpointBarrier;
import java.util.BitSet;
import java.util.Objects;

/**
 * The barriers of one checkpoint received so far at one task: which channels delivered it,
 * whether the handler holds channels blocked for it, and the {@link AlignmentMeasurement} for its
 * {@link BarrierAlignment} (PROTOCOL.md §4, §5). Bookkeeping shared by barrier handler
 * implementations; what to do with it (block, trigger, persist in-flight data) stays in each
 * handler's own state machine.
 *
 * <p>Task thread only: not thread-safe, owned by one handler.
 */
public final class PendingBarriers {
    private final String taskName;
    private final CheckpointBarrier barrier;
    private final AlignmentMeasurement measurement;
    /** Channels that delivered the barrier. Task thread only. */
    private final BitSet delivered = new BitSet();
    /** Whether channels are currently blocked for this checkpoint. Task thread only. */
    private boolean blocked;

    /**
     * @param taskName for error messages
     * @param barrier the first barrier received, with the options it arrived with (all barriers of
     *     one checkpoint carry the same id and timestamp)
     * @param measurement the timings noted at the first barrier
     * @throws NullPointerException if an argument is null
     */
    public PendingBarriers(String taskName, CheckpointBarrier barrier, AlignmentMeasurement measurement) {
        this.taskName = Objects.requireNonNull(taskName, "taskName");
        this.barrier = Objects.requireNonNull(barrier, "barrier");
        this.measurement = Objects.requireNonNull(measurement, "measurement");
    }

    /** @return the checkpoint id, ≥ 1 */
    public long checkpointId() {
        return barrier.checkpointId();
    }

    /** @return the first barrier received */
    public CheckpointBarrier barrier() {
        return barrier;
    }

    /** @return the timings noted at the first barrier */
    public AlignmentMeasurement measurement() {
        return measurement;
    }

    /** @return whether {@code channel} already delivered this barrier */
    public boolean hasDelivered(int channel) {
        return delivered.get(channel);
    }

    /**
     * Records that {@code channel} delivered the barrier.
     *
     * @throws IllegalStateException naming the task, channel and checkpoint if the channel already
     *     delivered it (a channel delivers each barrier once)
     */
    public void markDelivered(int channel) {
        if (delivered.get(channel)) {
            throw new IllegalStateException("task " + taskName + ": channel " + channel
                    + " delivered the barrier of checkpoint " + checkpointId() + " twice");
        }
        delivered.set(channel);
    }

    /** Records that the handler blocked a channel for this checkpoint. */
    public void markBlocked() {
        blocked = true;
    }

    /** Records that the handler resumed all channels while the checkpoint is still in progress. */
    public void markResumed() {
        blocked = false;
    }

    /** @return whether channels are blocked for this checkpoint */
    public boolean hasBlockedChannels() {
        return blocked;
    }

    /** @return whether every channel of {@code channels} delivered the barrier (true if none is live) */
    public boolean isComplete(InputChannelSet channels) {
        return channels.notIn(delivered).isEmpty();
    }

    /** @return the channels of {@code channels} that have not delivered the barrier, ascending; empty if none */
    public int[] missingChannels(InputChannelSet channels) {
        return channels.notIn(delivered).stream().toArray();
    }

    /**
     * @param nowNanos {@code nanoTime()} now (when the checkpoint is triggered), ns
     * @param bytesProcessedNow the handler's running total of processed bytes now
     * @return the barrier timings from the first barrier until now, see {@link AlignmentMeasurement#finish}
     */
    public BarrierAlignment alignment(long nowNanos, long bytesProcessedNow) {
        return measurement.finish(nowNanos, bytesProcessedNow);
    }
}
