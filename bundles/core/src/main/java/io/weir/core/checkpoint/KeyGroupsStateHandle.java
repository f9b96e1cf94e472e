package io.weir.core.checkpoint;

import io.weir.core.state.KeyGroupRange;

import java.util.Arrays;

/**
 * Keyed state of one subtask: a stream holding each key group's state one after another, and the
 * offset of each key group in it, so a restore with another parallelism can read just the key
 * groups it owns (PROTOCOL.md §7).
 *
 * @param range the key groups covered
 * @param offsets {@code offsets[i]} is where key group {@code range.start() + i} starts in the stream
 * @param delegate the stream
 */
public record KeyGroupsStateHandle(KeyGroupRange range, long[] offsets, StreamStateHandle delegate) {
    /** @throws IllegalArgumentException if there is not one offset per key group */
    public KeyGroupsStateHandle {
        if (offsets.length != range.size()) {
            throw new IllegalArgumentException(offsets.length + " offsets for " + range.size() + " key groups");
        }
    }

    /** @return the offset of {@code keyGroup} in the stream */
    public long offsetOf(int keyGroup) {
        return offsets[keyGroup - range.start()];
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof KeyGroupsStateHandle h && h.range.equals(range) && Arrays.equals(h.offsets, offsets)
                && h.delegate.equals(delegate);
    }

    @Override
    public int hashCode() {
        return range.hashCode() * 31 + Arrays.hashCode(offsets);
    }
}
