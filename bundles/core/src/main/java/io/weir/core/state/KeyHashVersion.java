package io.weir.core.state;

import io.weir.api.Row;

import java.util.Arrays;

/**
 * How keys are placed in key groups: the one definition of a key's placement hash and of the key group it maps
 * to (PROTOCOL.md §7, docs/checkpoint-format.md). Every checkpoint and savepoint stores keyed state per key group,
 * so the version a job's state was written with is recorded in its {@code _metadata} and the job keeps it for its
 * life: a new job gets {@link #CURRENT}; a job restored from a checkpoint or savepoint gets the version recorded
 * there (files from before format version 7 are {@link #LEGACY}), also across restarts and rescaling.
 *
 * <p>Both versions map a key to {@code murmur(keyHash) % maxParallelism}, with MurmurHash3's 32-bit mix of one
 * int and its finalizer; they differ in the key hash and in how a negative mix is made non-negative:
 * <ul>
 *   <li>{@link #LEGACY} (Weir up to format version 6): the key {@code Row}'s hash ({@link Row#hashCode}, also for a
 *       one-field key: {@code 31 + field.hashCode()}), and a negative mix {@code m} becomes {@code -(m + 1)}.</li>
 *   <li>{@link #FLINK}: Flink's {@code KeyGroupRangeAssignment.assignToKeyGroup}. A one-field key hashes as the
 *       field value's own {@code hashCode()} (Long, Integer, String, Double, Boolean as Java defines it, so a
 *       {@code LONG} key lands in the key group Flink gives the same {@code long}); a {@code BYTES} field as
 *       {@link Arrays#hashCode(byte[])} (Flink hashes arrays by identity, which no restore could reproduce); a null
 *       field as 0. A key of two or more fields keeps the key {@code Row}'s hash (Flink has no common formula for
 *       composite keys: a Tuple, a Row and a BinaryRowData each hash differently). The mix is Flink's
 *       {@code MathUtils.murmurHash}: a negative {@code m} becomes {@code -m} ({@code Integer.MIN_VALUE} becomes 0).
 *       With the benchmark's 16 keys and 2 subtasks this splits them 7/9 instead of LEGACY's 10/6.</li>
 * </ul>
 * Immutable; thread-safe.
 */
public enum KeyHashVersion {
    /** Weir's placement before format version 7: the key row's hash, {@code -(m + 1)} for a negative mix. */
    LEGACY(1) {
        @Override
        public int keyHash(Row key) {
            return key.hashCode();
        }

        @Override
        int nonNegative(int mixed) {
            return mixed >= 0 ? mixed : -(mixed + 1);
        }
    },
    /** Flink's placement: a one-field key's own {@code hashCode()}, Flink's {@code MathUtils.murmurHash}. */
    FLINK(2) {
        @Override
        public int keyHash(Row key) {
            return key.arity() == 1 ? key.hashOf(0) : key.hashCode(); // the field's own hash, Row#hashOf
        }

        @Override
        int nonNegative(int mixed) {
            return mixed >= 0 ? mixed : mixed != Integer.MIN_VALUE ? -mixed : 0;
        }
    };

    /** The version a new job (one restored from nothing) places its keys with. */
    public static final KeyHashVersion CURRENT = FLINK;

    private final int id;

    KeyHashVersion(int id) {
        this.id = id;
    }

    /** @return the number recorded in {@code _metadata} (docs/checkpoint-format.md): 1 LEGACY, 2 FLINK */
    public int id() {
        return id;
    }

    /**
     * @param id a number read from {@code _metadata}
     * @return the version with that number
     * @throws IllegalArgumentException if no version has it (the file was written by a newer Weir)
     */
    public static KeyHashVersion ofId(int id) {
        for (KeyHashVersion v : values()) {
            if (v.id == id) {
                return v;
            }
        }
        throw new IllegalArgumentException("unknown key hash version " + id + " (this Weir knows 1 LEGACY and 2 FLINK;"
                + " written by a newer Weir?)");
    }

    /**
     * @param key a key row (its fields in key order), arity ≥ 1
     * @return the placement hash of {@code key}; {@link #keyGroupForHash} maps it to its key group
     */
    public abstract int keyHash(Row key);

    /**
     * @param key a key row (its fields in key order)
     * @param maxParallelism number of key groups, ≥ 1
     * @return the key group of {@code key}, in {@code [0, maxParallelism)}
     */
    public int keyGroupFor(Row key, int maxParallelism) {
        return keyGroupForHash(keyHash(key), maxParallelism);
    }

    /**
     * @param keyHash a key's placement hash ({@link #keyHash}, or a value computed equal to it without building
     *        the key row)
     * @param maxParallelism number of key groups, ≥ 1
     * @return the key group, in {@code [0, maxParallelism)}
     */
    public int keyGroupForHash(int keyHash, int maxParallelism) {
        return nonNegative(murmurMix(keyHash)) % maxParallelism;
    }

    /** @return {@code mixed} made non-negative as this version does */
    abstract int nonNegative(int mixed);

    /** MurmurHash3's 32-bit mix of one int (length 4), then its finalizer: spreads poor hashCodes. */
    private static int murmurMix(int code) {
        code *= 0xcc9e2d51;
        code = Integer.rotateLeft(code, 15);
        code *= 0x1b873593;
        code = Integer.rotateLeft(code, 13);
        code = code * 5 + 0xe6546b64;
        code ^= 4;
        code ^= code >>> 16;
        code *= 0x85ebca6b;
        code ^= code >>> 13;
        code *= 0xc2b2ae35;
        code ^= code >>> 16;
        return code;
    }
}
