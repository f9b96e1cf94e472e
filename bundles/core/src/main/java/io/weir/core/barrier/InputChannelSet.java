package io.weir.core.barrier;

import java.util.BitSet;

/**
 * The input channels of one task, with the range check every {@link CheckpointBarrierHandler}
 * makes on an incoming event. Support class for handler implementations; channels are numbered
 * {@code [0, count)} across all input gates, as in {@link BarrierHandlerContext#numberOfInputChannels()}.
 *
 * <p>Immutable.
 */
public final class InputChannelSet {
    private final String taskName;
    private final int count;

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
    }

    /** @return the number of channels, ≥ 1 */
    public int count() {
        return count;
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
     * @return the channels not in {@code delivered}, as a new set
     */
    BitSet notIn(BitSet delivered) {
        BitSet missing = new BitSet(count);
        missing.set(0, count);
        missing.andNot(delivered);
        return missing;
    }
}
