package io.weir.core.state;

/**
 * Maps keys to key groups and key groups to subtasks with Flink's scheme (PROTOCOL.md §7):
 * {@code keyGroup = murmur(key.hashCode()) % maxParallelism}, and subtask {@code i} of {@code p} owns key
 * groups {@code [ceil(i*max/p), ceil((i+1)*max/p) - 1]}. Rescaling reassigns ranges and never rehashes keys.
 *
 * <p>Not bit for bit Flink's placement: the hash is the key {@code Row}'s (not its single field's), and a
 * negative murmur mix maps to {@code -(code + 1)} where Flink's {@code MathUtils.murmurHash} takes {@code -code},
 * so about half of all hashes land one key group away from Flink's. Every checkpoint and savepoint stores state
 * per key group, so changing either needs a versioned key hash in the checkpoint metadata; measured at 16 keys,
 * Flink's 7/9 split of the benchmark keys instead of Weir's 10/6 did not change records/s (benchmarks/README.md).
 */
public final class KeyGroupAssignment {
    private KeyGroupAssignment() {
    }

    /**
     * @param key a key with a JVM-independent hashCode (a {@code Row} of key fields)
     * @param maxParallelism number of key groups, ≥ 1
     * @return the key group in {@code [0, maxParallelism)}
     */
    public static int keyGroupFor(Object key, int maxParallelism) {
        return keyGroupForHash(key.hashCode(), maxParallelism);
    }

    /** @return the key group of a key whose {@code hashCode()} is {@code hash} */
    public static int keyGroupForHash(int hash, int maxParallelism) {
        return Math.floorMod(murmurFinalize(hash), maxParallelism);
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

    /** MurmurHash3's 32-bit mix of one int, then its finalizer: spreads poor hashCodes. */
    private static int murmurFinalize(int code) {
        code *= 0xcc9e2d51;
        code = Integer.rotateLeft(code, 15);
        code *= 0x1b873593;
        code = Integer.rotateLeft(code, 13);
        code = code * 5 + 0xe6546b64;
        code ^= 4;
        code ^= code >>> 16;
        code *= 0x85ebca6b;
        code ^= code >>> 13;
        code *= 0xc2b2ae35;
        code ^= code >>> 16;
        return code >= 0 ? code : -(code + 1) ;
    }
}
