package io.weir.runtime.io.network;

/**
 * In-band event: the producer subtask has emitted its last record. Barriers may still follow (the
 * final checkpoint commits the last data), so the channel stays open until the task terminates.
 */
public enum EndOfData {
    /** The only instance. */
    INSTANCE
}
