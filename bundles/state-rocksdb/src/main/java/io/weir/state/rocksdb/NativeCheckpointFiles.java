package io.weir.state.rocksdb;

import io.weir.core.checkpoint.SharedFileHandle;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The uploaded native RocksDB checkpoint of one incremental snapshot: what the snapshot's handle refers to, what
 * later snapshots reuse once it completed (its SST files), and what a delta snapshot copies (its private files and
 * columns) to describe the same DB plus its delta. Immutable.
 *
 * @param checkpointId the snapshot that made the native checkpoint
 * @param shared file name → handle of every file of the checkpoint directory, in name order: the SST files (uploaded
 *        by this snapshot or reused from an earlier one) and MANIFEST, CURRENT and OPTIONS (uploaded by this snapshot)
 * @param columns state name → kind of every column family, in column family order
 */
record NativeCheckpointFiles(long checkpointId, Map<String, SharedFileHandle> shared, Map<String, StateKind> columns) {
    NativeCheckpointFiles {
        shared = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(shared));
        columns = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(columns));
    }
}
