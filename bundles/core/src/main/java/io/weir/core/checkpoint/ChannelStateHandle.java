package io.weir.core.checkpoint;

/**
 * In-flight data of one channel persisted by an unaligned checkpoint (PROTOCOL.md §6): the
 * serialized network buffers, in order, each as a 4-byte length and its bytes.
 *
 * <p>For input channel state, {@code channel} is the index of the channel in the consuming task's
 * input gate; for result subpartition state, the index of the subpartition across the producing
 * task's output writers (edge order, then consumer subtask). Both are stable for a job graph and
 * parallelism, so a restore with the same parallelism replays each buffer into the same link.
 *
 * @param channel the channel or subpartition index, ≥ 0
 * @param delegate the bytes
 * @param dataBytes bytes of record data (excluding the buffer length prefixes)
 */
public record ChannelStateHandle(int channel, StreamStateHandle delegate, long dataBytes) {
    /** @throws IllegalArgumentException if an index or size is negative */
    public ChannelStateHandle {
        if (channel < 0 || dataBytes < 0) {
            throw new IllegalArgumentException("channel " + channel + " and data bytes " + dataBytes + " must be >= 0");
        }
    }
}
