package io.weir.plugin.datagen;

import io.weir.api.FieldType;
import io.weir.api.Schema;
import io.weir.api.plugin.PluginConfig;

import java.util.OptionalLong;

/**
 * The validated configuration of a {@code datagen} source.
 *
 * @param rate records per second over all subtasks ({@code rate}); 0 means unlimited
 * @param recordSize bytes of the {@code payload} field ({@code record-size}, default 100), 0 to 16 MiB
 * @param keys number of distinct keys ({@code keys}, default 16), at least 1
 * @param limit total records over all subtasks ({@code limit}); empty means unbounded
 */
public record DatagenSettings(double rate, int recordSize, long keys, OptionalLong limit) {
    /** The schema every datagen source emits: key, seq, ts (ms since the epoch), payload. */
    public static final Schema SCHEMA = Schema.builder()
            .field("key", FieldType.LONG)
            .field("seq", FieldType.LONG)
            .field("ts", FieldType.TIMESTAMP)
            .field("payload", FieldType.BYTES)
            .build();
    /** Largest accepted {@code record-size}: 16 MiB. */
    public static final int MAX_RECORD_SIZE = 16 << 20;

    /** @throws IllegalArgumentException if a value is out of its range */
    public DatagenSettings {
        if (!(rate >= 0) || Double.isInfinite(rate)) {
            throw new IllegalArgumentException("rate must be a finite number >= 0, got " + rate);
        }
        if (recordSize < 0 || recordSize > MAX_RECORD_SIZE) {
            throw new IllegalArgumentException("record-size must be between 0 and " + MAX_RECORD_SIZE + ", got " + recordSize);
        }
        if (keys < 1) {
            throw new IllegalArgumentException("keys must be >= 1, got " + keys);
        }
        if (limit == null || (limit.isPresent() && limit.getAsLong() < 0)) {
            throw new IllegalArgumentException("limit must be >= 0 when present, got " + limit);
        }
    }

    /**
     * Reads a {@code datagen} config: {@code rate}, {@code record-size}, {@code keys}, {@code limit}.
     *
     * @throws IllegalArgumentException naming the config field, e.g. {@code operators[0].config.keys must be >= 1, got 0}
     */
    public static DatagenSettings from(PluginConfig config) {
        // every setting is read before the first range check, so that an unknown key is reported with all settings
        double rate = config.getDouble("rate", 0);
        long size = config.getLong("record-size", 100);
        long keys = config.getLong("keys", 16);
        boolean bounded = config.has("limit");
        long l = config.getLong("limit", 0);
        if (!(rate >= 0) || Double.isInfinite(rate)) {
            throw config.error("rate", "must be a finite number >= 0 (records/s, 0 = unlimited), got " + rate);
        }
        if (size < 0 || size > MAX_RECORD_SIZE) {
            throw config.error("record-size", "must be between 0 and " + MAX_RECORD_SIZE + " bytes, got " + size);
        }
        if (keys < 1) {
            throw config.error("keys", "must be >= 1, got " + keys);
        }
        OptionalLong limit = OptionalLong.empty();
        if (bounded) {
            if (l < 0) {
                throw config.error("limit", "must be >= 0, got " + l);
            }
            limit = OptionalLong.of(l);
        }
        return new DatagenSettings(rate, (int) size, keys, limit);
    }
}
