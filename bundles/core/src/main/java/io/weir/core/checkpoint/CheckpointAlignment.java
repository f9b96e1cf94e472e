package io.weir.core.checkpoint;

/** How barriers of a checkpoint travel (PROTOCOL.md §4, §6). */
public enum CheckpointAlignment {
    /** Barriers are aligned: channels that delivered the barrier are blocked until all have. */
    ALIGNED,
    /** Aligned, but switches to unaligned once alignment exceeds the aligned-checkpoint timeout. */
    ALIGNED_WITH_TIMEOUT,
    /** Barriers overtake in-flight data, which is persisted as channel state. */
    UNALIGNED,
    /** Barriers are tracked and never block (AT_LEAST_ONCE mode). */
    AT_LEAST_ONCE
}
