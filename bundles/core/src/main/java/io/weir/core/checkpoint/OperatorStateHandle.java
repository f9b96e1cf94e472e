package io.weir.core.checkpoint;

import java.util.Map;

/**
 * Operator (non-keyed) state of one subtask: for each named list state, the offsets of its
 * elements in the stream, so elements can be redistributed on restore (PROTOCOL.md §7). A key of
 * {@code stateOffsets} is the state's name for a list state, whose elements are split round-robin
 * over the subtasks when the parallelism changes, or {@link #UNION_PREFIX} + name for a union list
 * state, whose elements all go to every subtask.
 *
 * @param stateOffsets state key ({@link #unionKey} for union states) → offsets of its elements
 * @param delegate the stream
 */
public record OperatorStateHandle(Map<String, long[]> stateOffsets, StreamStateHandle delegate) {
    /** Marks a key of {@link #stateOffsets} as a union list state; list state names must not start with it. */
    public static final String UNION_PREFIX = "union:";

    public OperatorStateHandle {
        stateOffsets = Map.copyOf(stateOffsets);
    }

    /** @return the key under which the union list state {@code name} is stored */
    public static String unionKey(String name) {
        return UNION_PREFIX + name;
    }

    /** @return whether {@code key} of {@link #stateOffsets} is a union list state */
    public static boolean isUnionKey(String key) {
        return key.startsWith(UNION_PREFIX);
    }
}
