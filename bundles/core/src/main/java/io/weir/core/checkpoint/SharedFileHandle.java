package io.weir.core.checkpoint;

import java.util.Objects;

/**
 * A file that a keyed-state snapshot references and that later checkpoints of the same subtask may reference
 * too (an SST file of an incremental RocksDB checkpoint, docs/state-rocksdb.md). Such files live in the job's
 * shared-state location, not in a checkpoint's directory; the coordinator's {@code SharedStateRegistry}
 * reference-counts them over the retained checkpoints and deletes one only when no retained checkpoint
 * refers to it (docs/checkpoint-format.md, "Shared state").
 *
 * @param name the file's name inside the snapshot that references it (e.g. {@code 000042.sst}), not empty
 * @param handle where the bytes are (a file, with its CRC32)
 * @param uploadedBy the id of the checkpoint whose snapshot wrote the file, ≥ 1
 */
public record SharedFileHandle(String name, StreamStateHandle handle, long uploadedBy) {
    /**
     * @throws NullPointerException if {@code name} or {@code handle} is null
     * @throws IllegalArgumentException if {@code name} is empty or {@code uploadedBy} &lt; 1
     */
    public SharedFileHandle {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(handle, "handle");
        if (name.isEmpty()) {
            throw new IllegalArgumentException("shared file name must not be empty");
        }
        if (uploadedBy < 1) {
            throw new IllegalArgumentException("shared file " + name + ": uploadedBy must be >= 1, got " + uploadedBy);
        }
    }

    /**
     * @return the key the coordinator's registry counts references by: the file's absolute, normalized path;
     *         null for inline bytes, which live in the {@code _metadata} and need no deleting
     */
    public String registryKey() {
        return handle instanceof StreamStateHandle.FileStateHandle f
                ? java.nio.file.Path.of(f.path()).toAbsolutePath().normalize().toString() : null;
    }
}
