package io.weir.barrier.unaligned;

import java.util.BitSet;

/**
 * Which input channels of one task are still live, i.e. have not delivered their end of
 * partition. The handler waits for, and has the runtime record in-flight data of, live channels
 * only (PROTOCOL.md §4, §6).
 *
 * <p>Task thread only: not thread-safe, owned by the handler that created it.
 */
final class InputChannels {
    private final String taskName;
    private final int count;
    /** Channels that delivered end of partition. Task thread only. */
    private final BitSet ended;

    /**
     * @param taskName for error messages
     * @param count number of input channels of the task, ≥ 1
     * @throws IllegalArgumentException if {@code count} is below 1
     */
    InputChannels(String taskName, int count) {
        if (count < 1) {
            throw new IllegalArgumentException(
                    "task " + taskName + " must have at least one input channel, got " + count);
        }
        this.taskName = taskName;
        this.count = count;
        this.ended = new BitSet(count);
    }

    /**
     * @return whether {@code channel} has not ended
     * @throws IllegalArgumentException if the index is out of range
     */
    boolean isLive(int channel) {
        return !ended.get(checkIndex(channel));
    }

    /**
     * Marks {@code channel} as ended.
     *
     * @throws IllegalArgumentException if the index is out of range
     * @throws IllegalStateException if the channel already ended (a channel ends once)
     */
    void markEnded(int channel) {
        if (ended.get(checkIndex(channel))) {
            throw new IllegalStateException(
                    "task " + taskName + ": channel " + channel + " delivered end of partition twice");
        }
        ended.set(channel);
    }

    /**
     * @param delivered channels that delivered a barrier
     * @return the live channels not in {@code delivered}, ascending; empty if there are none
     */
    int[] liveNotIn(BitSet delivered) {
        BitSet missing = new BitSet(count);
        missing.set(0, count);
        missing.andNot(ended);
        missing.andNot(delivered);
        return missing.stream().toArray();
    }

    /**
     * @return {@code channel}
     * @throws IllegalArgumentException if {@code channel} is not in [0, count)
     */
    int checkIndex(int channel) {
        if (channel < 0 || channel >= count) {
            throw new IllegalArgumentException("task " + taskName + ": channel " + channel
                    + " out of range [0, " + count + ")");
        }
        return channel;
    }
}
