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
 * @param shared SST name → handle, in name order (uploaded by this snapshot or reused from an earlier one)
 * @param privateFiles name → content of the other files of the checkpoint directory (MANIFEST, CURRENT, OPTIONS)
 * @param columns state name → kind of every column family, in column family order
 */
record NativeCheckpointFiles(long checkpointId, Map<String, SharedFileHandle> shared, Map<String, byte[]> privateFiles,
        Map<String, StateKind> columns) {
    NativeCheckpointFiles {
        shared = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(shared));
        privateFiles = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(privateFiles));
        columns = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(columns));
    }
}
