package io.weir.core.state;

/**
 * A contiguous, inclusive range of key groups owned by one subtask (PROTOCOL.md §7).
 *
 * @param start first key group, ≥ 0
 * @param end last key group, ≥ start - 1 (start - 1 means empty)
 */
public record KeyGroupRange(int start, int end) {
    /** @throws IllegalArgumentException if the bounds are negative or inverted by more than one */
    public KeyGroupRange {
        if (start < 0 || end < start - 1) {
            throw new IllegalArgumentException("invalid key group range [" + start + ", " + end + "]");
        }
    }

    /** @return the number of key groups in the range */
    public int size() {
        return end - start + 1;
    }

    /** @return whether {@code keyGroup} lies in the range */
    public boolean contains(int keyGroup) {
        return keyGroup >= start && keyGroup <= end;
    }
}
