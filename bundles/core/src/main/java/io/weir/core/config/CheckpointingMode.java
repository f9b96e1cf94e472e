package io.weir.core.config;

/** Consistency of checkpoints (PROTOCOL.md §2 {@code execution.checkpointing.mode}, §4). */
public enum CheckpointingMode {
    /** Barriers are aligned (or unaligned): every record is reflected exactly once in state. */
    EXACTLY_ONCE,
    /** Barriers are tracked, never blocking: records may be reflected twice after a restore. */
    AT_LEAST_ONCE
}
