package io.weir.core.config;

import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Options of the state backends other than the backend's type ({@link ExecutionOptions#STATE_BACKEND}), with
 * Flink's keys and defaults. Read by the backend from {@code KeyedStateBackendParameters#config()};
 * documented in {@code docs/configuration.md} and {@code docs/state-rocksdb.md}.
 */
public final class StateBackendOptions {
    private StateBackendOptions() {
    }

    /**
     * Directory under which the RocksDB backend creates one working directory per keyed operator subtask
     * ({@code weir-rocksdb-<job>-<operator>-<subtask>-<random>/}), deleted when the task ends. Unset means
     * the JVM's temporary directory ({@code java.io.tmpdir}).
     */
    public static final ConfigOption<String> ROCKSDB_LOCAL_DIR = ConfigOption.stringOption(
            "state.backend.rocksdb.localdir", null,
            "Local working directory of the RocksDB backend; unset means java.io.tmpdir.");

    /**
     * Whether checkpoints of the RocksDB backend upload only the SST files the last completed checkpoint did not
     * already reference (shared files, reference-counted by the coordinator). Flink's key and default. Savepoints
     * are always full and canonical; the heap backend ignores the option.
     */
    public static final ConfigOption<Boolean> INCREMENTAL = ConfigOption.booleanOption(
            "state.backend.incremental", false,
            "Incremental checkpoints of the RocksDB backend (savepoints stay full).");

    /** Flink's predefined RocksDB option sets ({@code state.backend.rocksdb.predefined-options}). */
    public enum PredefinedOptions {
        /** RocksDB's defaults with Weir's (and Flink's) few changes: no fsync, no WAL, unlimited open files. */
        DEFAULT,
        /** Level compaction with dynamic level sizes, 4 background threads: for spinning disks. */
        SPINNING_DISK_OPTIMIZED,
        /** As SPINNING_DISK_OPTIMIZED plus a 256 MB block cache, 128 KB blocks, 4 write buffers and bloom filters. */
        SPINNING_DISK_OPTIMIZED_HIGH_MEM,
        /** 4 background threads: for SSDs. */
        FLASH_SSD_OPTIMIZED
    }

    /** RocksDB compaction styles ({@code state.backend.rocksdb.compaction.style}). */
    public enum CompactionStyle {
        LEVEL,
        UNIVERSAL,
        FIFO
    }

    /**
     * The base set of RocksDB options; the explicit options below override it where set. Flink's key and default.
     */
    public static final ConfigOption<PredefinedOptions> ROCKSDB_PREDEFINED_OPTIONS = ConfigOption.enumOption(
            "state.backend.rocksdb.predefined-options", PredefinedOptions.class, PredefinedOptions.DEFAULT,
            "Base RocksDB options: DEFAULT, SPINNING_DISK_OPTIMIZED, SPINNING_DISK_OPTIMIZED_HIGH_MEM or FLASH_SSD_OPTIMIZED.");

    /** Block cache (LRU) of each keyed subtask's DB, bytes. Unset: 8 MB, or the predefined set's. */
    public static final ConfigOption<Long> ROCKSDB_BLOCK_CACHE_SIZE = memoryOption(
            "state.backend.rocksdb.block.cache-size",
            "Block cache of each keyed subtask's RocksDB (e.g. '64 mb'); unset: 8 MB or the predefined options' size.")
            .greaterThan(0, "bytes");

    /** Data block size of the SST files, bytes. Unset: RocksDB's 4 KB, or the predefined set's. */
    public static final ConfigOption<Long> ROCKSDB_BLOCK_SIZE = memoryOption(
            "state.backend.rocksdb.block.blocksize",
            "Data block size of RocksDB's SST files (e.g. '16 kb'); unset: 4 KB or the predefined options' size.")
            .greaterThan(0, "bytes");

    /** Memtable size per column family (state), bytes. Unset: 64 MB. */
    public static final ConfigOption<Long> ROCKSDB_WRITE_BUFFER_SIZE = memoryOption(
            "state.backend.rocksdb.writebuffer.size",
            "Memtable size of each state's column family before it is flushed to an SST file (e.g. '32 mb'); unset: 64 MB.")
            .greaterThan(0, "bytes");

    /** Memtables per column family. Unset: 2 (RocksDB's), or the predefined set's. */
    public static final ConfigOption<Integer> ROCKSDB_WRITE_BUFFER_COUNT = ConfigOption.intOption(
            "state.backend.rocksdb.writebuffer.count", null,
            "Memtables per column family (one active, the others being flushed); unset: 2 or the predefined options' count.")
            .atLeast(1, "");

    /** Compaction style of every column family. Unset: LEVEL. */
    public static final ConfigOption<CompactionStyle> ROCKSDB_COMPACTION_STYLE = ConfigOption.enumOption(
            "state.backend.rocksdb.compaction.style", CompactionStyle.class, null,
            "RocksDB compaction style: LEVEL, UNIVERSAL or FIFO; unset: LEVEL.");

    /** Background threads (flushes and compactions) of each keyed subtask's DB. Unset: 2, or the predefined set's. */
    public static final ConfigOption<Integer> ROCKSDB_THREADS = ConfigOption.intOption(
            "state.backend.rocksdb.thread.num", null,
            "Background flush and compaction threads of each keyed subtask's RocksDB; unset: 2 or the predefined options' count.")
            .atLeast(1, "");

    /** Timers kept in memory per key group of a RocksDB timer queue (its head cache). Flink's key and default. */
    public static final ConfigOption<Integer> ROCKSDB_TIMER_CACHE_SIZE = ConfigOption.intOption(
            "state.backend.rocksdb.timer-service.cache-size", 128,
            "Earliest timers kept in memory per key group of each RocksDB timer queue.")
            .atLeast(1, "");

    /**
     * Keys of each value or reducing state of a RocksDB subtask served from a write-back cache on the heap
     * (docs/state-rocksdb.md "State cache"); 0 turns the cache off.
     */
    public static final ConfigOption<Integer> ROCKSDB_STATE_CACHE_SIZE = ConfigOption.intOption(
            "state.backend.rocksdb.state-cache.size", 65536,
            "Keys of each value or reducing state per subtask kept deserialized on the heap in front of RocksDB; dirty"
                    + " ones are written back on eviction and by every snapshot but a delta checkpoint. 0 turns the cache off.")
            .atLeast(0, "");

    /**
     * Whether incremental RocksDB checkpoints may be delta checkpoints: the state caches' dirty values over the files
     * of the last completed native checkpoint, while RocksDB was not written since (docs/state-rocksdb.md).
     */
    public static final ConfigOption<Boolean> ROCKSDB_DELTA_CHECKPOINTS = ConfigOption.booleanOption(
            "state.backend.rocksdb.delta-checkpoints", true,
            "Incremental checkpoints carry the state cache's dirty values over the last completed native RocksDB checkpoint"
                    + " while RocksDB was not written since (no flush, no new SST files); false: every incremental checkpoint"
                    + " flushes and uploads new SST files.");

    /** @return every option of this class, for docs and validation */
    public static List<ConfigOption<?>> all() {
        return List.of(ROCKSDB_LOCAL_DIR, INCREMENTAL, ROCKSDB_PREDEFINED_OPTIONS, ROCKSDB_BLOCK_CACHE_SIZE, ROCKSDB_BLOCK_SIZE,
                ROCKSDB_WRITE_BUFFER_SIZE, ROCKSDB_WRITE_BUFFER_COUNT, ROCKSDB_COMPACTION_STYLE, ROCKSDB_THREADS,
                ROCKSDB_TIMER_CACHE_SIZE, ROCKSDB_STATE_CACHE_SIZE, ROCKSDB_DELTA_CHECKPOINTS);
    }

    private static final Pattern MEMORY = Pattern.compile("\\s*(\\d+)\\s*(b|bytes|k|kb|kib|m|mb|mib|g|gb|gib)?\\s*");

    /** An option of a size in bytes: a number of bytes, or a number with a unit ("64 mb", "512kb", "1 g"; powers of 1024). */
    private static ConfigOption<Long> memoryOption(String key, String description) {
        return new ConfigOption<>(key, null, description, StateBackendOptions::parseBytes);
    }

    /**
     * @return the size in bytes
     * @throws IllegalArgumentException if {@code v} is not a size, or is too large
     */
    static long parseBytes(Object v) {
        if (v instanceof Number n) {
            return ConfigParsers.parseLong(n);
        }
        Matcher m = MEMORY.matcher(String.valueOf(v).toLowerCase(Locale.ROOT));
        if (!m.matches()) {
            throw new IllegalArgumentException("expected a size such as '64 mb', '512 kb', '1 gb' or a number of bytes, got '"
                    + v + "'");
        }
        String unit = m.group(2) == null ? "b" : m.group(2);
        int shift = switch (unit.charAt(0)) {
            case 'k' -> 10;
            case 'm' -> 20;
            case 'g' -> 30;
            default -> 0;
        };
        try {
            long n = Long.parseLong(m.group(1));
            if (n > (Long.MAX_VALUE >> shift)) {
                throw new NumberFormatException();
            }
            return n << shift;
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("size '" + v + "' is too large");
        }
    }
}
