package io.weir.core.coordination;

/** Why a checkpoint is triggered. All kinds pass the request decider (PROTOCOL.md §2). */
public enum CheckpointTriggerKind {
    /** The periodic scheduler. */
    PERIODIC,
    /** A user request (CLI, REST). */
    MANUAL,
    /** All bounded sources finished: the last data gets committed by this one. */
    FINAL,
    /**
     * A user's savepoint (PROTOCOL.md §7): always aligned, written self-contained into its own directory,
     * never added to the completed-checkpoint store (so never subsumed or discarded, and not counted in
     * {@code num-retained}); its completion is notified to the tasks like a checkpoint's.
     */
    SAVEPOINT
}
