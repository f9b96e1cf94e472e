package io.weir.core.coordination;

import io.weir.core.checkpoint.CheckpointFailureReason;

/** Told about every finished checkpoint, e.g. to print the CLI lines or serve REST stats. Thread-safe. */
public interface CheckpointStatsListener {
    /** Checkpoint completed. */
    void onCompleted(CompletedCheckpointStats stats);

    /** Checkpoint failed; {@code cause} may be null. */
    default void onFailed(long checkpointId, CheckpointFailureReason reason, Throwable cause) {
    }
}
