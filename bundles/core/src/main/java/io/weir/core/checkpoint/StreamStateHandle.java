package io.weir.core.checkpoint;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;

/**
 * Where a stream of checkpointed bytes lives. Acks and {@code _metadata} carry handles, never the
 * state itself (PROTOCOL.md §2), except that very small state is kept inline
 * ({@link ByteStreamStateHandle}) to spare a file per tiny snapshot.
 */
public sealed interface StreamStateHandle permits StreamStateHandle.FileStateHandle, StreamStateHandle.ByteStreamStateHandle {

    /** @return the number of bytes */
    long size();

    /**
     * @return a stream over the bytes; the caller closes it
     * @throws IOException naming the file if it is missing or unreadable
     */
    InputStream open() throws IOException;

    /**
     * Bytes in a file.
     *
     * @param path absolute path of the file
     * @param size its length in bytes
     */
    record FileStateHandle(String path, long size) implements StreamStateHandle {
        @Override
        public InputStream open() throws IOException {
            try {
                return Files.newInputStream(Path.of(path));
            } catch (NoSuchFileException e) {
                throw new IOException("checkpoint state file " + path + " is missing", e);
            }
        }
    }

    /**
     * Bytes kept inline in the metadata.
     *
     * @param data the bytes (not copied; do not modify)
     */
    record ByteStreamStateHandle(byte[] data) implements StreamStateHandle {
        @Override
        public long size() {
            return data.length;
        }

        @Override
        public InputStream open() {
            return new ByteArrayInputStream(data);
        }
    }
}
