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
 * @param directory the checkpoint directory
 * @param context job and checkpoint, for error messages
 */
public record FsCheckpointStreamFactory(Path directory, String context) implements CheckpointStreamFactory {
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
