package io.weir.state.rocksdb;

import io.weir.core.config.Configuration;
import io.weir.core.config.StateBackendOptions;
import io.weir.core.config.StateBackendOptions.PredefinedOptions;
import org.rocksdb.BlockBasedTableConfig;
import org.rocksdb.BloomFilter;
import org.rocksdb.ColumnFamilyOptions;
import org.rocksdb.CompactionStyle;
import org.rocksdb.DBOptions;
import org.rocksdb.LRUCache;
import org.rocksdb.ReadOptions;
import org.rocksdb.WriteOptions;

/**
 * The native option objects of one keyed subtask's DB, built from the {@code state.backend.rocksdb.*} options
 * ({@link StateBackendOptions}, docs/state-rocksdb.md): the predefined set first, then every explicit option
 * over it. Owns them: {@link #close} releases all, after the DB that uses them is closed.
 *
 * <p>Created and closed by the task thread; the objects are then read-only and used by RocksDB's threads too.
 */
final class RocksDBResources implements AutoCloseable {
    /** Flink's block cache size when RocksDB's memory is not managed. */
    static final long DEFAULT_BLOCK_CACHE_BYTES = 8L << 20;
    /** Flink's (and RocksDB's) default memtable size. */
    static final long DEFAULT_WRITE_BUFFER_BYTES = 64L << 20;

    final DBOptions db;
    final ColumnFamilyOptions columns;
    final WriteOptions write;
    /** For the task thread's point reads (no snapshot, checksums not re-verified on every read). */
    final ReadOptions read;
    final int timerCacheSize;
    /** Keys per value or reducing state in its {@link WriteBackCache}; 0: no cache. */
    final int stateCacheSize;
    /** Whether incremental checkpoints may be delta checkpoints ({@code state.backend.rocksdb.delta-checkpoints}). */
    final boolean deltaCheckpoints;
    private final LRUCache cache;
    private final BloomFilter bloom;

    /**
     * @param config the job's configuration
     * @throws IllegalArgumentException naming the key if an option's value is invalid
     */
    RocksDBResources(Configuration config) {
        for (var option : StateBackendOptions.all()) {
            checked(config, option);
        }
        PredefinedOptions base = config.get(StateBackendOptions.ROCKSDB_PREDEFINED_OPTIONS);
        boolean highMem = base == PredefinedOptions.SPINNING_DISK_OPTIMIZED_HIGH_MEM;
        int threads = orDefault(config.get(StateBackendOptions.ROCKSDB_THREADS), base == PredefinedOptions.DEFAULT ? 2 : 4);
        long cacheBytes = orDefault(config.get(StateBackendOptions.ROCKSDB_BLOCK_CACHE_SIZE),
                highMem ? 256L << 20 : DEFAULT_BLOCK_CACHE_BYTES);
        long blockBytes = orDefault(config.get(StateBackendOptions.ROCKSDB_BLOCK_SIZE), highMem ? 128L << 10 : 4L << 10);
        long writeBuffer = orDefault(config.get(StateBackendOptions.ROCKSDB_WRITE_BUFFER_SIZE), DEFAULT_WRITE_BUFFER_BYTES);
        int writeBuffers = orDefault(config.get(StateBackendOptions.ROCKSDB_WRITE_BUFFER_COUNT), highMem ? 4 : 2);
        StateBackendOptions.CompactionStyle style = config.get(StateBackendOptions.ROCKSDB_COMPACTION_STYLE);
        this.timerCacheSize = config.get(StateBackendOptions.ROCKSDB_TIMER_CACHE_SIZE);
        this.stateCacheSize = config.get(StateBackendOptions.ROCKSDB_STATE_CACHE_SIZE);
        this.deltaCheckpoints = config.get(StateBackendOptions.ROCKSDB_DELTA_CHECKPOINTS);

        this.cache = new LRUCache(cacheBytes);
        this.bloom = highMem ? new BloomFilter(10, false) : null;
        BlockBasedTableConfig table = new BlockBasedTableConfig().setBlockCache(cache).setBlockSize(blockBytes);
        if (bloom != null) {
            table.setFilterPolicy(bloom);
        }
        this.db = new DBOptions().setCreateIfMissing(true).setCreateMissingColumnFamilies(true)
                .setUseFsync(false).setMaxOpenFiles(-1).setMaxBackgroundJobs(threads);
        this.columns = new ColumnFamilyOptions().setTableFormatConfig(table)
                .setWriteBufferSize(writeBuffer).setMaxWriteBufferNumber(writeBuffers);
        if (base == PredefinedOptions.SPINNING_DISK_OPTIMIZED || highMem) {
            columns.setLevelCompactionDynamicLevelBytes(true);
        }
        if (highMem) {
            columns.setMinWriteBufferNumberToMerge(Math.min(3, writeBuffers)).setTargetFileSizeBase(256L << 20)
                    .setMaxBytesForLevelBase(1L << 30);
        }
        if (style != null) {
            columns.setCompactionStyle(CompactionStyle.valueOf(style.name()));
        }
        this.write = new WriteOptions().setDisableWAL(true);
        this.read = new ReadOptions();
    }

    private static <T> T orDefault(T value, T dflt) {
        return value != null ? value : dflt;
    }

    /** Applies the option's bound, so a value set programmatically (not through the job parser) is checked too. */
    private static <T> void checked(Configuration config, io.weir.core.config.ConfigOption<T> option) {
        try {
            option.check(config.get(option));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("configuration '" + option.key() + "': " + e.getMessage(), e);
        }
    }

    /** Releases every native object; the DB using them must be closed first. Idempotent per object. */
    @Override
    public void close() {
        read.close();
        write.close();
        columns.close();
        db.close();
        if (bloom != null) {
            bloom.close();
        }
        cache.close();
    }
}
