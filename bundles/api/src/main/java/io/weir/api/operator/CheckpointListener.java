package io.weir.api.operator;

/**
 * Told about the fate of checkpoints. Both calls arrive as mails on the task thread
 * (PROTOCOL.md §3) and can be lost by a failure, so work done in them must be idempotent and
 * redone after a restore (PROTOCOL.md §8).
 */
public interface CheckpointListener {
    /**
     * Checkpoint {@code checkpointId} is complete: its {@code _metadata} is durable. A two-phase-commit
     * sink commits here. A notification may subsume earlier checkpoints whose notification never came.
     *
     * @throws Exception reported by the task; the other operators of the chain are still notified
     */
    default void notifyCheckpointComplete(long checkpointId) throws Exception {
    }

    /** Checkpoint {@code checkpointId} was aborted (declined, expired or superseded by a failover). */
    default void notifyCheckpointAborted(long checkpointId) throws Exception {
    }
}
