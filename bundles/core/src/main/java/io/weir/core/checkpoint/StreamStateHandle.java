package io.weir.core.checkpoint;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Objects;
import java.util.OptionalInt;

/**
 * Where a stream of checkpointed bytes lives. Acks and {@code _metadata} carry handles, never the
 * state itself (PROTOCOL.md §2), except that very small state is kept inline
 * ({@link ByteStreamStateHandle}) to spare a file per tiny snapshot.
 *
 * <p>A handle may carry the CRC32 of its bytes ({@link #crc32()}), computed by the stream that wrote
 * them; the checkpoint storage verifies it before the checkpoint is restored (docs/checkpoint-format.md).
 * Handles read from checkpoints of older formats, or built by storages that do not checksum, have none.
 */
public sealed interface StreamStateHandle permits StreamStateHandle.FileStateHandle, StreamStateHandle.ByteStreamStateHandle {

    /** @return the number of bytes */
    long size();

    /** @return the CRC32 ({@link java.util.zip.CRC32}) of all {@link #size()} bytes as an {@code int}, or empty if not recorded */
    OptionalInt crc32();

    /**
     * @return a stream over the bytes; the caller closes it
     * @throws IOException naming the file if it is missing or unreadable
     */
    InputStream open() throws IOException;

    /**
     * Bytes in a file.
     *
     * @param path absolute path of the file
     * @param size its length in bytes, ≥ 0
     * @param crc32 CRC32 of the file's bytes, or empty if not recorded
     */
    record FileStateHandle(String path, long size, OptionalInt crc32) implements StreamStateHandle {
        /**
         * @throws NullPointerException if {@code path} or {@code crc32} is null
         * @throws IllegalArgumentException if {@code size} is negative
         */
        public FileStateHandle {
            Objects.requireNonNull(path, "path");
            Objects.requireNonNull(crc32, "crc32");
            if (size < 0) {
                throw new IllegalArgumentException("size of checkpoint state file " + path + " must be >= 0, got " + size);
            }
        }

        /** A file handle without a checksum. */
        public FileStateHandle(String path, long size) {
            this(path, size, OptionalInt.empty());
        }

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
     * @param crc32 CRC32 of {@code data}, or empty if not recorded
     */
    record ByteStreamStateHandle(byte[] data, OptionalInt crc32) implements StreamStateHandle {
        /** @throws NullPointerException if {@code data} or {@code crc32} is null */
        public ByteStreamStateHandle {
            Objects.requireNonNull(data, "data");
            Objects.requireNonNull(crc32, "crc32");
        }

        /** Inline bytes without a checksum. */
        public ByteStreamStateHandle(byte[] data) {
            this(data, OptionalInt.empty());
        }

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
