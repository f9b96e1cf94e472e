package io.weir.core.config;

import java.util.List;

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

    /** @return every option of this class, for docs and validation */
    public static List<ConfigOption<?>> all() {
        return List.of(ROCKSDB_LOCAL_DIR, INCREMENTAL);
    }
}
