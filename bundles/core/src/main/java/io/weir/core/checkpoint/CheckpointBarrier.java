package io.weir.core.checkpoint;

/**
 * The in-band marker of checkpoint {@code id}: everything a channel delivered before it belongs to
 * the checkpoint, nothing after it (PROTOCOL.md §1).
 *
 * @param checkpointId checkpoint id, ≥ 1
 * @param timestamp checkpoint creation time at the coordinator, ms since the epoch
 * @param options how to handle it
 */
public record CheckpointBarrier(long checkpointId, long timestamp, CheckpointOptions options) {
    /** @throws IllegalArgumentException if the id is below 1 */
    public CheckpointBarrier {
        if (checkpointId < 1) {
            throw new IllegalArgumentException("checkpoint id must be >= 1, got " + checkpointId);
        }
    }

    /** @return this barrier switched to unaligned (it overtakes in-flight data from now on) */
    public CheckpointBarrier asUnaligned() {
        return options.isUnaligned() ? this : new CheckpointBarrier(checkpointId, timestamp, options.toUnaligned());
    }
}
