package io.weir.runtime.io.network;

/**
 * In-band event: the producer subtask became idle (emits no records for a while, so its watermark must not
 * hold back the consumer's) or active again. Sent like {@link Watermark}.
 */
public enum WatermarkStatus {
    /** No records for {@code watermark.idle-timeout}: leave this channel out of the minimum. */
    IDLE,
    /** Records flow again: the channel counts once its watermark catches up with the consumer's. */
    ACTIVE
}
