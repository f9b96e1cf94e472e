package io.weir.core.storage;

import java.io.IOException;

/** Creates state streams inside one checkpoint's location. Thread-safe. */
public interface CheckpointStreamFactory {
    /**
     * @return a new stream whose bytes belong to this checkpoint
     * @throws IOException if the location cannot be written, naming the directory
     */
    CheckpointStateOutputStream createOutputStream() throws IOException;

    /**
     * @return whether {@link #createSharedOutputStream} works here: true for a checkpoint location of a storage
     *         with a shared-state location, false for savepoints (which are self-contained) and by default
     */
    default boolean supportsSharedState() {
        return false;
    }

    /**
     * A stream for a file that later checkpoints may reference (an SST file of an incremental checkpoint): it
     * is written to the job's shared-state location, outside this checkpoint's directory, and deleted only by
     * the coordinator's shared-state bookkeeping ({@link CheckpointStorage#discardSharedFile}).
     *
     * @return a new stream whose handle the caller wraps in a {@link io.weir.core.checkpoint.SharedFileHandle}
     * @throws IOException if the location cannot be written, naming the directory
     * @throws UnsupportedOperationException if {@link #supportsSharedState()} is false
     */
    default CheckpointStateOutputStream createSharedOutputStream() throws IOException {
        throw new UnsupportedOperationException(getClass().getSimpleName() + " has no shared-state location");
    }
}
