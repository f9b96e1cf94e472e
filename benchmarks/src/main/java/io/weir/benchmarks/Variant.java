package io.weir.benchmarks;

import java.util.List;
import java.util.Optional;

/**
 * One configuration of the checkpoint benchmark (PROTOCOL.md §5). Every variant runs the same
 * shape: {@code datagen} (parallelism 2) → hash by {@code key} → {@code keyed-aggregate} count
 * (id {@code counter}, parallelism 2) → {@code count-sink} chained after it (forward, parallelism 2).
 *
 * @param name the name given on the command line, e.g. {@code nobp}
 * @param description one line for {@code --list}
 * @param rate datagen records/s over both source subtasks; 0 = unlimited
 * @param recordSizeBytes datagen payload bytes per record, >= 0
 * @param keys distinct keys, >= 1
 * @param sleepMsPerRecord pause of the counter per record in ms (backpressure), >= 0
 * @param checkpointIntervalMs checkpoint trigger period in ms, > 0
 * @param defaultDurationS how long the job runs unless {@code --duration-s} says otherwise, > 0
 * @param config further job configuration (e.g. unaligned checkpoints), key → value
 */
public record Variant(String name, String description, double rate, int recordSizeBytes, long keys,
        long sleepMsPerRecord, long checkpointIntervalMs, int defaultDurationS, java.util.Map<String, String> config) {

    /** The job configuration of the {@code rocksdb-*} variants (Flink 2.3's reference jobs of the same names). */
    private static final java.util.Map<String, String> ROCKSDB_INCREMENTAL = java.util.Map.of(
            "state.backend.type", "rocksdb", "state.backend.incremental", "true");

    /** The variants, in {@code --list} order. Immutable. */
    public static final List<Variant> ALL = List.of(
            new Variant("nobp", "no backpressure: 2000 rec/s of 1 KB, 16 keys, checkpoint every 5 s (PROTOCOL.md §5)",
                    2000, 1000, 16, 0, 5000, 30, java.util.Map.of()),
            new Variant("bp", "backpressure, aligned: as nobp, the counter sleeps 5 ms per record (~200 rec/s capacity)",
                    2000, 1000, 16, 5, 5000, 30, java.util.Map.of()),
            new Variant("bp-unaligned", "as bp, with unaligned checkpoints (PROTOCOL.md §6)",
                    2000, 1000, 16, 5, 5000, 30, java.util.Map.of("execution.checkpointing.unaligned.enabled", "true")),
            new Variant("bp-aligned-timeout", "as bp, aligned first, unaligned after a 100 ms aligned-checkpoint timeout",
                    2000, 1000, 16, 5, 5000, 30, java.util.Map.of("execution.checkpointing.unaligned.enabled", "true",
                            "execution.checkpointing.aligned-checkpoint-timeout", "100 ms")),
            new Variant("throughput-16", "unlimited rate, 100-byte records, 16 keys, checkpoint every 1 s",
                    0, 100, 16, 0, 1000, 20, java.util.Map.of()),
            new Variant("throughput-100k", "unlimited rate, 100-byte records, 100,000 keys, checkpoint every 1 s",
                    0, 100, 100_000, 0, 1000, 20, java.util.Map.of()),
            new Variant("rocksdb-nobp", "as nobp, keyed state in RocksDB with incremental checkpoints",
                    2000, 1000, 16, 0, 5000, 30, ROCKSDB_INCREMENTAL),
            new Variant("rocksdb-throughput-16", "as throughput-16, keyed state in RocksDB with incremental checkpoints",
                    0, 100, 16, 0, 1000, 20, ROCKSDB_INCREMENTAL),
            new Variant("rocksdb-throughput-100k", "as throughput-100k, keyed state in RocksDB with incremental checkpoints",
                    0, 100, 100_000, 0, 1000, 20, ROCKSDB_INCREMENTAL),
            new Variant("rocksdb-10m-keys", "large state: unlimited rate, 100-byte records, 10,000,000 keys, RocksDB incremental, "
                    + "checkpoint every 5 s (state_size vs checkpointed_size per checkpoint)",
                    0, 100, 10_000_000, 0, 5000, 60, ROCKSDB_INCREMENTAL));

    /** @throws IllegalArgumentException naming the variant and the value out of range */
    public Variant {
        if (name == null || name.isBlank()) {
            throw new IllegalArgumentException("variant name must not be blank");
        }
        if (!(rate >= 0) || Double.isInfinite(rate)) {
            throw new IllegalArgumentException("variant " + name + ": rate must be a finite number >= 0, got " + rate);
        }
        if (recordSizeBytes < 0) {
            throw new IllegalArgumentException("variant " + name + ": record size must be >= 0 bytes, got " + recordSizeBytes);
        }
        if (keys < 1) {
            throw new IllegalArgumentException("variant " + name + ": keys must be >= 1, got " + keys);
        }
        if (sleepMsPerRecord < 0) {
            throw new IllegalArgumentException("variant " + name + ": sleep must be >= 0 ms, got " + sleepMsPerRecord);
        }
        if (checkpointIntervalMs <= 0) {
            throw new IllegalArgumentException("variant " + name + ": checkpoint interval must be > 0 ms, got " + checkpointIntervalMs);
        }
        config = java.util.Map.copyOf(config);
        if (defaultDurationS <= 0) {
            throw new IllegalArgumentException("variant " + name + ": duration must be > 0 s, got " + defaultDurationS);
        }
    }

    /** @return the variant called {@code name}, if there is one */
    public static Optional<Variant> named(String name) {
        return ALL.stream().filter(v -> v.name.equals(name)).findFirst();
    }
}
