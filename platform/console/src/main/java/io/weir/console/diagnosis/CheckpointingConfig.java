package io.weir.console.diagnosis;

/**
 * The job's checkpointing options that the diagnosis weighs ({@code GET /jobs/:id/checkpoints/config}).
 *
 * @param intervalMs the checkpoint interval in ms; -1 when periodic checkpoints are off
 * @param minPauseMs the minimum pause between checkpoints in ms, &gt;= 0
 * @param unalignedEnabled whether unaligned checkpoints are enabled
 */
public record CheckpointingConfig(long intervalMs, long minPauseMs, boolean unalignedEnabled) {
    /** @throws IllegalArgumentException for an interval below -1 or a negative pause */
    public CheckpointingConfig {
        if (intervalMs < -1 || minPauseMs < 0) {
            throw new IllegalArgumentException("checkpointing config: interval must be >= -1 and min-pause >= 0 ms, got "
                    + intervalMs + " and " + minPauseMs);
        }
    }
}
