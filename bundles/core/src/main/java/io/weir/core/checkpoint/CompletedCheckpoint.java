package io.weir.core.checkpoint;

/**
 * A checkpoint whose every task acknowledged and whose {@code _metadata} is durable.
 *
 * @param checkpointId the id
 * @param triggerTimestamp creation time, ms since the epoch
 * @param completionTimestamp when {@code _metadata} became durable, ms since the epoch
 * @param externalPointer the checkpoint directory ({@code .../chk-<id>}), usable to restore
 * @param metadata the state handles
 */
public record CompletedCheckpoint(long checkpointId, long triggerTimestamp, long completionTimestamp,
        String externalPointer, CheckpointMetadata metadata) {

    /** @return end-to-end duration in ms */
    public long durationMs() {
        return completionTimestamp - triggerTimestamp;
    }
}
