package io.weir.core.barrier;

import java.util.BitSet;

/**
 * Which input channels of one task are still live, i.e. have not delivered their end of
 * partition, with the range and liveness checks every {@link CheckpointBarrierHandler} makes on an
 * incoming event. A handler waits for, and has the runtime record in-flight data of, live channels
 * only (PROTOCOL.md §4, §6). Support class for handler implementations; channels are numbered
 * {@code [0, count)} across all input gates, as in {@link BarrierHandlerContext#numberOfInputChannels()}.
 *
 * <p>Task thread only: not thread-safe, owned by the handler that created it.
 */
public final class InputChannelSet {
    private final String taskName;
    private final int count;
    /** Channels that delivered end of partition. Task thread only. */
    private final BitSet ended;

    /**
     * @param taskName for error messages
     * @param count number of input channels of the task, ≥ 1
     * @throws IllegalArgumentException if {@code count} is below 1
     * @throws NullPointerException if {@code taskName} is null
     */
    public InputChannelSet(String taskName, int count) {
        if (taskName == null) {
            throw new NullPointerException("taskName");
        }
        if (count < 1) {
            throw new IllegalArgumentException(
                    "task " + taskName + " must have at least one input channel, got " + count);
        }
        this.taskName = taskName;
        this.count = count;
        this.ended = new BitSet(count);
    }

    /** @return the number of channels, ended or not, ≥ 1 */
    public int count() {
        return count;
    }

    /** @return the number of channels that have not ended, in [0, count] */
    public int liveCount() {
        return count - ended.cardinality();
    }

    /**
     * @return whether {@code channel} has not ended
     * @throws IllegalArgumentException if {@code channel} is not in [0, count)
     */
    public boolean isLive(int channel) {
        return !ended.get(checkIndex(channel));
    }

    /**
     * Checks that {@code event} may arrive on {@code channel}: no barrier or cancel marker can
     * follow a channel's end of partition.
     *
     * @param channel the channel the event arrived on
     * @param event what arrived, for the message, e.g. "barrier of checkpoint 7"
     * @throws IllegalArgumentException if {@code channel} is not in [0, count)
     * @throws IllegalStateException naming the task, event and channel if the channel already ended
     */
    public void requireLive(int channel, String event) {
        if (!isLive(channel)) {
            throw new IllegalStateException("task " + taskName + ": " + event + " on channel " + channel
                    + " after its end of partition");
        }
    }

    /**
     * Marks {@code channel} as ended: it is never waited for again.
     *
     * @throws IllegalArgumentException if {@code channel} is not in [0, count)
     * @throws IllegalStateException if the channel already ended (a channel ends once)
     */
    public void markEnded(int channel) {
        if (ended.get(checkIndex(channel))) {
            throw new IllegalStateException(
                    "task " + taskName + ": channel " + channel + " delivered end of partition twice");
        }
        ended.set(channel);
    }

    /**
     * @return {@code channel}
     * @throws IllegalArgumentException naming the task if {@code channel} is not in [0, count)
     */
    public int checkIndex(int channel) {
        if (channel < 0 || channel >= count) {
            throw new IllegalArgumentException("task " + taskName + ": channel " + channel
                    + " out of range [0, " + count + ")");
        }
        return channel;
    }

    /**
     * @param delivered channels that delivered a barrier (not modified)
     * @return the live channels not in {@code delivered}, as a new set
     */
    BitSet liveNotIn(BitSet delivered) {
        BitSet missing = new BitSet(count);
        missing.set(0, count);
        missing.andNot(ended);
        missing.andNot(delivered);
        return missing;
    }
}
