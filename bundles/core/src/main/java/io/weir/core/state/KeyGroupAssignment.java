package io.weir.core.state;

/**
 * Maps key groups to subtasks with Flink's scheme (PROTOCOL.md §7): subtask {@code i} of {@code p} owns key
 * groups {@code [ceil(i*max/p), ceil((i+1)*max/p) - 1]}, and key group {@code g} goes to subtask
 * {@code g * p / max}. Rescaling reassigns ranges and never rehashes keys. Which key group a key is in is
 * {@link KeyHashVersion}'s: the placement is versioned and recorded in every checkpoint and savepoint.
 */
public final class KeyGroupAssignment {
    private KeyGroupAssignment() {
    }

    /**
     * @param keyGroup key group
     * @param maxParallelism number of key groups
     * @param parallelism number of subtasks, 1..maxParallelism
     * @return the subtask owning the key group
     */
    public static int subtaskForKeyGroup(int keyGroup, int maxParallelism, int parallelism) {
        return keyGroup * parallelism / maxParallelism;
    }

    /** @return the key groups subtask {@code index} of {@code parallelism} owns */
    public static KeyGroupRange rangeForSubtask(int maxParallelism, int parallelism, int index) {
        if (parallelism < 1 || parallelism > maxParallelism || index < 0 || index >= parallelism) {
            throw new IllegalArgumentException("subtask " + index + " of parallelism " + parallelism
                    + " does not fit max parallelism " + maxParallelism);
        }
        int start = (index * maxParallelism + parallelism - 1) / parallelism;
        int end = ((index + 1) * maxParallelism + parallelism - 1) / parallelism - 1;
        return new KeyGroupRange(start, end);
    }
}
