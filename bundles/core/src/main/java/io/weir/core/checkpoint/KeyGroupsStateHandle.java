package io.weir.core.checkpoint;

import io.weir.core.state.KeyGroupRange;

import java.util.Arrays;
import java.util.List;

/**
 * Keyed state of one subtask: a stream holding each key group's state one after another, and the
 * offset of each key group in it, so a restore with another parallelism can read just the key
 * groups it owns (PROTOCOL.md §7).
 *
 * <p>An incremental snapshot (RocksDB, docs/state-rocksdb.md) has {@link #sharedFiles}: the files it
 * references in the job's shared-state location, some written by earlier checkpoints. Its {@link #delegate}
 * then holds the backend's own description of the snapshot (not the per-key-group stream) and its offsets are
 * all 0; {@link #isIncremental()} tells the two apart.
 *
 * @param range the key groups covered
 * @param offsets {@code offsets[i]} is where key group {@code range.start() + i} starts in the stream
 * @param delegate the stream
 * @param sharedFiles the shared files the snapshot references (empty for a self-contained snapshot)
 */
public record KeyGroupsStateHandle(KeyGroupRange range, long[] offsets, StreamStateHandle delegate,
        List<SharedFileHandle> sharedFiles) {
    /** @throws IllegalArgumentException if there is not one offset per key group */
    public KeyGroupsStateHandle {
        if (offsets.length != range.size()) {
            throw new IllegalArgumentException(offsets.length + " offsets for " + range.size() + " key groups");
        }
        sharedFiles = List.copyOf(sharedFiles);
    }

    /** A self-contained snapshot: one stream with every key group's state, no shared files. */
    public KeyGroupsStateHandle(KeyGroupRange range, long[] offsets, StreamStateHandle delegate) {
        this(range, offsets, delegate, List.of());
    }

    /** @return whether this is an incremental snapshot referencing shared files */
    public boolean isIncremental() {
        return !sharedFiles.isEmpty();
    }

    /** @return the bytes of the whole snapshot: the stream and every shared file it references */
    public long stateSize() {
        long size = delegate.size();
        for (SharedFileHandle f : sharedFiles) {
            size += f.handle().size();
        }
        return size;
    }

    /**
     * @param checkpointId the checkpoint this handle was written for
     * @return the bytes that checkpoint wrote: the stream and the shared files it uploaded (not those of earlier
     *         checkpoints it only references)
     */
    public long checkpointedSize(long checkpointId) {
        long size = delegate.size();
        for (SharedFileHandle f : sharedFiles) {
            if (f.uploadedBy() == checkpointId) {
                size += f.handle().size();
            }
        }
        return size;
    }

    /** @return the offset of {@code keyGroup} in the stream */
    public long offsetOf(int keyGroup) {
        return offsets[keyGroup - range.start()];
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof KeyGroupsStateHandle h && h.range.equals(range) && Arrays.equals(h.offsets, offsets)
                && h.delegate.equals(delegate) && h.sharedFiles.equals(sharedFiles);
    }

    @Override
    public int hashCode() {
        return range.hashCode() * 31 + Arrays.hashCode(offsets);
    }
}
