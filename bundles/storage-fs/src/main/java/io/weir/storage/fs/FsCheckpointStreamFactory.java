package io.weir.storage.fs;

import io.weir.core.storage.CheckpointStateOutputStream;
import io.weir.core.storage.CheckpointStreamFactory;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Creates {@link FsCheckpointStateOutputStream}s in one checkpoint directory ({@code <dir>/<job>/chk-<id>/}).
 * Thread-safe and lock-free: every stream gets its own file, named by a random UUID, created only when
 * the stream outgrows {@link FsCheckpointStateOutputStream#MEMORY_THRESHOLD_BYTES}.
 *
 * <p>A checkpoint's factory (not a savepoint's) also has a shared-state directory,
 * {@code <dir>/<job>/shared/chk-<id>/}, for files later checkpoints may reference
 * ({@link #createSharedOutputStream()}); it is created on first use.
 *
 * @param directory the checkpoint directory
 * @param context job and checkpoint, for error messages
 * @param sharedDirectory where this checkpoint's shared files go, or null (savepoints: self-contained)
 */
public record FsCheckpointStreamFactory(Path directory, String context, Path sharedDirectory)
        implements CheckpointStreamFactory {

    /** A factory without a shared-state location (a savepoint's). */
    public FsCheckpointStreamFactory(Path directory, String context) {
        this(directory, context, null);
    }

    /** @return whether this location has a shared-state directory (checkpoints, not savepoints) */
    @Override
    public boolean supportsSharedState() {
        return sharedDirectory != null;
    }

    /**
     * @return a stream whose file goes to {@link #sharedDirectory} (created if missing)
     * @throws IOException naming the directory if it cannot be created, or the checkpoint directory if it
     *         was already discarded (the checkpoint was aborted: nothing must be written for it any more)
     * @throws UnsupportedOperationException for a savepoint
     */
    @Override
    public CheckpointStateOutputStream createSharedOutputStream() throws IOException {
        if (sharedDirectory == null) {
            throw new UnsupportedOperationException("savepoint location " + directory + " (" + context
                    + ") has no shared state: savepoints are self-contained");
        }
        if (!Files.isDirectory(directory)) {
            throw new IOException("checkpoint directory " + directory + " (" + context
                    + ") does not exist: not initialised, or already discarded");
        }
        try {
            Files.createDirectories(sharedDirectory);
        } catch (IOException e) {
            throw new IOException("cannot create shared state directory " + sharedDirectory + " (" + context + "): " + e, e);
        }
        return new FsCheckpointStateOutputStream(sharedDirectory, context, directory);
    }

    /**
     * @return a new stream of this checkpoint
     * @throws IOException naming the directory if it does not exist (never initialised, or already
     *         discarded because the checkpoint was aborted or subsumed)
     */
    @Override
    public CheckpointStateOutputStream createOutputStream() throws IOException {
        if (!Files.isDirectory(directory)) {
            throw new IOException("checkpoint directory " + directory + " (" + context
                    + ") does not exist: not initialised, or already discarded");
        }
        return new FsCheckpointStateOutputStream(directory, context);
    }
}
