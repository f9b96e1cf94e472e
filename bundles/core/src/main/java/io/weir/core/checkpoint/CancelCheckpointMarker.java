package io.weir.core.checkpoint;

/**
 * Sent downstream in-band when a task aborts checkpoint {@code checkpointId}, so downstream tasks
 * stop aligning for it (PROTOCOL.md §2 "Decline").
 *
 * @param checkpointId the aborted checkpoint
 */
public record CancelCheckpointMarker(long checkpointId) {
}
