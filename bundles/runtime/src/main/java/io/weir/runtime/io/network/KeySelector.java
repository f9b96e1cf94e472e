package io.weir.runtime.io.network;

import io.weir.api.Row;
import io.weir.api.Schema;
import io.weir.core.state.KeyHashVersion;

import java.util.List;

/**
 * Extracts the key fields of a row. {@link #hash} equals {@code hashVersion().keyHash(key(row))} without
 * building the key row, so the producer partitions by key group without allocating and the
 * consumer's state lands in the same key group. Immutable.
 */
public final class KeySelector {
    private final int[] positions;
    private final Schema keySchema;
    private final KeyHashVersion hashVersion;
    /** {@link KeyHashVersion#FLINK} with a one-field key: the hash is that field's own. */
    private final boolean fieldHash;

    /**
     * @param input schema of the rows
     * @param keyFields names of the key fields
     * @param hashVersion how the job places keys in key groups (its restored state's, {@link KeyHashVersion#CURRENT}
     *        for a fresh job)
     * @throws IllegalArgumentException if a field is missing
     */
    public KeySelector(Schema input, List<String> keyFields, KeyHashVersion hashVersion) {
        this.positions = keyFields.stream().mapToInt(input::require).toArray();
        this.keySchema = input.project(keyFields);
        this.hashVersion = java.util.Objects.requireNonNull(hashVersion, "hashVersion");
        this.fieldHash = hashVersion == KeyHashVersion.FLINK && positions.length == 1;
    }

    /** @return how {@link #hash} places keys; {@code hashVersion().keyGroupForHash(hash(row), max)} is a row's key group */
    public KeyHashVersion hashVersion() {
        return hashVersion;
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

    /**
     * @return {@code hashVersion().keyHash(key(row))}, computed without allocating (nor boxing a long the row holds
     *         unboxed, {@link Row#hashOf}): for {@link KeyHashVersion#LEGACY} and keys of several fields
     *         {@code key(row).hashCode()}, for a one-field {@link KeyHashVersion#FLINK} key the field's own hash
     */
    public int hash(Row row) {
        if (fieldHash) {
            return row.hashOf(positions[0]);
        }
        int h = 1;
        for (int p : positions) {
            h = 31 * h + row.hashOf(p);
        }
        return h;
    }
}
