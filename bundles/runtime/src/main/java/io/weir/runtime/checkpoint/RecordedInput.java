package io.weir.runtime.checkpoint;

import java.util.List;
import java.util.Map;

/**
 * What a task's inputs give an unaligned checkpoint once every barrier has arrived (PROTOCOL.md §6):
 * the in-flight input data to persist, and how much input the task processed meanwhile.
 *
 * @param buffers input channel → the bytes of the buffers read after the snapshot from that channel
 *                before its barrier arrived (the unread rest of the buffer being deserialized at the
 *                snapshot included), in reading order; channels with nothing in flight are absent
 * @param processedBytes bytes of input the task processed, over all its channels, from the snapshot
 *                       until the last barrier arrived (≥ 0): the unaligned counterpart of the bytes
 *                       processed during alignment (PROTOCOL.md §5)
 */
public record RecordedInput(Map<Integer, List<byte[]>> buffers, long processedBytes) {
    /** Nothing in flight, nothing processed: aligned checkpoints and tasks without inputs. */
    public static final RecordedInput NONE = new RecordedInput(Map.of(), 0);

    /** @throws IllegalArgumentException if {@code processedBytes} is negative */
    public RecordedInput {
        buffers = Map.copyOf(buffers);
        if (processedBytes < 0) {
            throw new IllegalArgumentException("processed bytes must be >= 0, got " + processedBytes);
        }
    }
}
