package io.weir.core.checkpoint;

import java.util.Map;

/**
 * Operator (non-keyed) state of one subtask: for each named list state, the offsets of its
 * elements in the stream, so elements can be redistributed round-robin on rescale (PROTOCOL.md §7).
 *
 * @param stateOffsets state name → offsets of its elements
 * @param delegate the stream
 */
public record OperatorStateHandle(Map<String, long[]> stateOffsets, StreamStateHandle delegate) {
    public OperatorStateHandle {
        stateOffsets = Map.copyOf(stateOffsets);
    }
}
