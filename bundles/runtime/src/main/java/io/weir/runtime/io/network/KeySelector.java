package io.weir.runtime.io.network;

import io.weir.api.Row;
import io.weir.api.Schema;

import java.util.Arrays;
import java.util.List;

/**
 * Extracts the key fields of a row. {@link #hash} equals {@code key(row).hashCode()} without
 * building the key row, so the producer partitions by key group without allocating and the
 * consumer's state lands in the same key group. Immutable.
 */
public final class KeySelector {
    private final int[] positions;
    private final Schema keySchema;

    /**
     * @param input schema of the rows
     * @param keyFields names of the key fields
     * @throws IllegalArgumentException if a field is missing
     */
    public KeySelector(Schema input, List<String> keyFields) {
        this.positions = keyFields.stream().mapToInt(input::require).toArray();
        this.keySchema = input.project(keyFields);
    }

    /** @return the positions of the key fields in the input schema, in key order (a copy) */
    public int[] positions() {
        return positions.clone();
    }

    /** @return the schema of key rows */
    public Schema keySchema() {
        return keySchema;
    }

    /** @return a row of just the key fields */
    public Row key(Row row) {
        return row.project(positions, keySchema);
    }

    /** @return {@code key(row).hashCode()}, computed without allocating */
    public int hash(Row row) {
        int h = 1;
        for (int p : positions) {
            Object v = row.get(p);
            int e = v == null ? 0 : v instanceof byte[] b ? Arrays.hashCode(b) : v.hashCode();
            h = 31 * h + e;
        }
        return h;
    }
}
