package io.weir.plugin.basic;

import io.weir.api.plugin.PluginConfig;

/**
 * Slows an operator down by a fixed pause per record (config {@code sleep-ms-per-record}, default 0),
 * to simulate an expensive operator, e.g. for the backpressure benchmark (PROTOCOL.md §5: 5 ms per
 * record). Immutable; {@link #pause} blocks the calling task thread.
 *
 * @param sleepMillisPerRecord ms to sleep per record, >= 0 (0 = no pause)
 */
public record RecordThrottle(long sleepMillisPerRecord) {
    /** The config key. */
    public static final String KEY = "sleep-ms-per-record";

    /** @throws IllegalArgumentException if the pause is negative */
    public RecordThrottle {
        if (sleepMillisPerRecord < 0) {
            throw new IllegalArgumentException(KEY + " must be >= 0, got " + sleepMillisPerRecord);
        }
    }

    /**
     * @return the throttle configured by {@code sleep-ms-per-record}
     * @throws IllegalArgumentException naming the config field if it is not a whole number >= 0
     */
    public static RecordThrottle from(PluginConfig config) {
        long ms = config.getLong(KEY, 0);
        if (ms < 0) {
            throw config.error(KEY, "must be >= 0 (ms), got " + ms);
        }
        return new RecordThrottle(ms);
    }

    /**
     * Sleeps {@link #sleepMillisPerRecord} ms (returns at once when 0).
     *
     * @throws IllegalStateException if the thread is interrupted while sleeping (task cancellation);
     *         the interrupt flag is restored first
     */
    public void pause() {
        if (sleepMillisPerRecord == 0) {
            return;
        }
        try {
            Thread.sleep(sleepMillisPerRecord);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted during " + KEY + " pause of " + sleepMillisPerRecord + " ms", e);
        }
    }
}
