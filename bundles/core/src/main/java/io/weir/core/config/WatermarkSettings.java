package io.weir.core.config;

import io.weir.api.Schema;
import io.weir.api.plugin.PluginConfig;
import io.weir.api.time.TimestampExtractor;

/**
 * Event-time settings of a source operator, read by the runtime (not by the source plugin) from the source's
 * {@code config} in the job file:
 * <ul>
 * <li>{@code timestamp-field}: the field holding each record's event time; absent = the source emits no
 *     watermarks;</li>
 * <li>{@code timestamp-format}: a {@link java.time.format.DateTimeFormatter} pattern for a string field read as
 *     UTC (e.g. {@code yyyy/MM/dd HH:mm}); absent = ISO-8601 instants, or epoch ms for long/timestamp fields;</li>
 * <li>{@code watermark.max-out-of-orderness}: bounded out-of-orderness (duration, default 0 ms): the watermark
 *     is the largest timestamp seen minus this, minus 1 ms;</li>
 * <li>{@code watermark.idle-timeout}: a source subtask that emitted no record for this long is marked idle and
 *     does not hold back downstream watermarks until it emits again (duration, default 0 = never idle).</li>
 * </ul>
 *
 * @param extractor reads the timestamp field
 * @param maxOutOfOrdernessMs bounded out-of-orderness, ms, >= 0
 * @param idleTimeoutMs idle timeout, ms; 0 = never idle
 */
public record WatermarkSettings(TimestampExtractor extractor, long maxOutOfOrdernessMs, long idleTimeoutMs) {
    /** Setting keys. */
    public static final String TIMESTAMP_FIELD = "timestamp-field";
    public static final String TIMESTAMP_FORMAT = "timestamp-format";
    public static final String MAX_OUT_OF_ORDERNESS = "watermark.max-out-of-orderness";
    public static final String IDLE_TIMEOUT = "watermark.idle-timeout";

    /** @throws IllegalArgumentException if a duration is negative */
    public WatermarkSettings {
        if (maxOutOfOrdernessMs < 0 || idleTimeoutMs < 0) {
            throw new IllegalArgumentException("watermark durations must be >= 0 ms, got out-of-orderness "
                    + maxOutOfOrdernessMs + " ms, idle timeout " + idleTimeoutMs + " ms");
        }
    }

    /**
     * Reads (and marks as read) the settings of a source.
     *
     * @param config the source's config
     * @param output the source's output schema
     * @return the settings, or null if there is no {@code timestamp-field}
     * @throws IllegalArgumentException naming the setting's path if a value is invalid, or if a watermark setting
     *         is given without {@code timestamp-field}
     */
    public static WatermarkSettings of(PluginConfig config, Schema output) {
        boolean any = config.has(TIMESTAMP_FORMAT) || config.has(MAX_OUT_OF_ORDERNESS) || config.has(IDLE_TIMEOUT);
        String field = config.getString(TIMESTAMP_FIELD, null);
        String format = config.getString(TIMESTAMP_FORMAT, null);
        long outOfOrderness = duration(config, MAX_OUT_OF_ORDERNESS);
        long idle = duration(config, IDLE_TIMEOUT);
        if (field == null) {
            if (any) {
                throw config.error(TIMESTAMP_FIELD, "is required with timestamp-format and watermark.* settings: "
                        + "name the field holding each record's event time");
            }
            return null;
        }
        TimestampExtractor extractor;
        try {
            extractor = TimestampExtractor.of(output, field, format);
        } catch (IllegalArgumentException e) {
            throw config.error(format != null && e.getMessage().startsWith("timestamp-format") ? TIMESTAMP_FORMAT : TIMESTAMP_FIELD,
                    e.getMessage());
        }
        return new WatermarkSettings(extractor, outOfOrderness, idle);
    }

    private static long duration(PluginConfig config, String key) {
        if (!config.has(key)) {
            return 0;
        }
        try {
            return ConfigParsers.parseDurationMs(config.raw(key));
        } catch (IllegalArgumentException e) {
            throw config.error(key, e.getMessage());
        }
    }
}
