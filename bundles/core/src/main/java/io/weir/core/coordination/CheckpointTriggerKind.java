package io.weir.core.coordination;

/** Why a checkpoint is triggered. All kinds pass the request decider (PROTOCOL.md §2). */
public enum CheckpointTriggerKind {
    /** The periodic scheduler. */
    PERIODIC,
    /** A user request (CLI, REST). */
    MANUAL,
    /** All bounded sources finished: the last data gets committed by this one. */
    FINAL
}
