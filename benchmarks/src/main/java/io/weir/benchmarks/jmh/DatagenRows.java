package io.weir.benchmarks.jmh;

import io.weir.api.FieldType;
import io.weir.api.Row;
import io.weir.api.Schema;

import java.util.Random;

/**
 * Rows shaped like the {@code datagen} source's (plugins/source-datagen {@code DatagenReader}):
 * {@code (key LONG = seq % keys, seq LONG, ts TIMESTAMP, payload BYTES)}, so the microbenchmarks
 * measure the record path on the same rows as the {@code throughput-*} variants of
 * {@code benchmarks/run.sh}. Stateless.
 */
public final class DatagenRows {
    /** Payload bytes per row, as the {@code throughput-16} and {@code throughput-100k} variants. */
    public static final int PAYLOAD_BYTES = 100;

    /** The datagen schema: key, seq, ts (ms since the epoch), payload. Immutable. */
    public static final Schema SCHEMA = Schema.builder()
            .field("key", FieldType.LONG)
            .field("seq", FieldType.LONG)
            .field("ts", FieldType.TIMESTAMP)
            .field("payload", FieldType.BYTES)
            .build();

    /** A fixed timestamp (2024-01-01T00:00:00Z in ms), so runs do not depend on the wall clock. */
    private static final long TS_MS = 1_704_067_200_000L;

    private DatagenRows() {
    }

    /**
     * @param count rows to make, ≥ 1
     * @param keys distinct keys, ≥ 1; row {@code i} gets key {@code i % keys}, as datagen's {@code seq % keys}
     * @return {@code count} rows with seq {@code 0..count-1}, sharing one {@value #PAYLOAD_BYTES}-byte
     *         payload of fixed pseudo-random bytes (rows are immutable once emitted, so sharing is safe)
     * @throws IllegalArgumentException if {@code count} or {@code keys} is below 1
     */
    public static Row[] rows(int count, long keys) {
        if (count < 1 || keys < 1) {
            throw new IllegalArgumentException("count " + count + " and keys " + keys + " must be >= 1");
        }
        byte[] payload = new byte[PAYLOAD_BYTES];
        new Random(42).nextBytes(payload);
        Row[] rows = new Row[count];
        for (int i = 0; i < count; i++) {
            rows[i] = new Row(SCHEMA, i % keys, (long) i, TS_MS + i, payload);
        }
        return rows;
    }
}
