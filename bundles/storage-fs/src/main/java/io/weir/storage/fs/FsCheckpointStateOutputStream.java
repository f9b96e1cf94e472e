package io.weir.storage.fs;

import io.weir.core.checkpoint.StreamStateHandle;
import io.weir.core.checkpoint.StreamStateHandle.ByteStreamStateHandle;
import io.weir.core.checkpoint.StreamStateHandle.FileStateHandle;
import io.weir.core.storage.CheckpointStateOutputStream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.OptionalInt;
import java.util.UUID;
import java.util.zip.CRC32;

/**
 * A state stream inside one checkpoint directory ({@code chk-<id>/}). Bytes are buffered in memory;
 * if the stream is closed with at most {@link #MEMORY_THRESHOLD_BYTES} bytes, the result is an inline
 * {@link ByteStreamStateHandle} and no file is created. Once more bytes arrive the buffer spills into a
 * new file named by a random UUID, and {@link #closeAndGetHandle()} flushes, fsyncs
 * ({@link FileChannel#force}) and returns a {@link FileStateHandle} with the file's absolute path.
 * Either handle carries the CRC32 of all bytes written ({@link StreamStateHandle#crc32()}), computed as
 * they are written, so that a restore can refuse a state file that changed on disk
 * ({@link CheckpointStateVerifier}; docs/checkpoint-format.md).
 *
 * <p>State machine ({@link State}): {@code BUFFERING → WRITING_FILE → CLOSED}, or
 * {@code BUFFERING → CLOSED}. {@link #close()} without {@link #closeAndGetHandle()} discards what was
 * written (the file, if any, is deleted), as in Flink.
 *
 * <p>Not thread-safe: owned by one thread at a time (the AsyncOperations thread writing a snapshot).
 */
public final class FsCheckpointStateOutputStream extends CheckpointStateOutputStream {
    /**
     * Streams of at most this many bytes (4096) are kept inline in the checkpoint metadata instead of
     * in a file of their own: Flink's "memory threshold" idea ({@code state.storage.fs.memory-threshold}),
     * which spares a file, a create and an fsync per tiny snapshot (the benchmark job's whole state is
     * ~5.7 KB over 2 subtasks).
     */
    public static final int MEMORY_THRESHOLD_BYTES = 4096;

    private static final Logger LOG = LoggerFactory.getLogger(FsCheckpointStateOutputStream.class);

    /** Lifecycle of the stream; transitions only through {@link #transition}. */
    enum State {
        /** All bytes so far are in {@link #buffer}; no file exists. */
        BUFFERING,
        /** The file exists; {@link #buffer} holds bytes not yet written to it. */
        WRITING_FILE,
        /** Closed: by {@link #closeAndGetHandle()} (file kept) or {@link #close()} (file deleted). */
        CLOSED;

        boolean canMoveTo(State next) {
            return switch (this) {
                case BUFFERING -> next == WRITING_FILE || next == CLOSED;
                case WRITING_FILE -> next == CLOSED;
                case CLOSED -> false;
            };
        }
    }

    private final Path directory;
    private final String context;
    /** The checkpoint directory that must still exist when the file is completed (shared files), or null. */
    private final Path owner;

    // All fields below: owned by the thread currently writing the stream.
    private final byte[] buffer = new byte[MEMORY_THRESHOLD_BYTES];
    private final CRC32 crc = new CRC32();
    private int bufferPos;
    private long bytesInFile;
    private Path file;
    private FileChannel channel;
    private State state = State.BUFFERING;

    /**
     * @param directory the checkpoint directory the file (if any) is created in; must exist by the time
     *        the stream spills
     * @param context job and checkpoint, for error messages (e.g. {@code "job wordcount checkpoint 7"})
     */
    public FsCheckpointStateOutputStream(Path directory, String context) {
        this(directory, context, null);
    }

    /**
     * A stream whose file lives outside its checkpoint's directory (a shared file of an incremental checkpoint):
     * if {@code owner} no longer exists when the file is completed (the checkpoint was aborted and discarded
     * meanwhile, and the discard may have listed the shared directory before this file existed),
     * {@link #closeAndGetHandle()} deletes the file and throws, so no file of an aborted checkpoint stays behind.
     *
     * @param directory where the file (if any) is created; must exist by the time the stream spills
     * @param context job and checkpoint, for error messages
     * @param owner the checkpoint directory, or null to skip the check
     */
    public FsCheckpointStateOutputStream(Path directory, String context, Path owner) {
        this.directory = directory;
        this.context = context;
        this.owner = owner;
    }

    @Override
    public void write(int b) throws IOException {
        ensureOpen();
        if (bufferPos == buffer.length) {
            spill();
        }
        buffer[bufferPos++] = (byte) b;
        crc.update(b);
    }

    @Override
    public void write(byte[] b, int off, int len) throws IOException {
        ensureOpen();
        java.util.Objects.checkFromIndexSize(off, len, b.length);
        crc.update(b, off, len);
        while (len > 0) {
            if (bufferPos == buffer.length) {
                spill();
            }
            if (bufferPos == 0 && state == State.WRITING_FILE && len >= buffer.length) {
                writeToFile(ByteBuffer.wrap(b, off, len));
                return;
            }
            int n = Math.min(len, buffer.length - bufferPos);
            System.arraycopy(b, off, buffer, bufferPos, n);
            bufferPos += n;
            off += n;
            len -= n;
        }
    }

    /** @return bytes written so far (buffered and in the file) */
    @Override
    public long position() {
        return bytesInFile + bufferPos;
    }

    /** Does nothing: bytes are made durable by {@link #closeAndGetHandle()}, which is the only point a handle exists. */
    @Override
    public void flush() {
        // Intentionally empty: flushing small buffers early would defeat the inline threshold.
    }

    /**
     * @return an inline handle when at most {@link #MEMORY_THRESHOLD_BYTES} bytes were written, else the
     *         file's handle (absolute path, size in bytes) after flush and fsync; both with the CRC32 of the bytes
     * @throws IOException if the stream is already closed, or writing/syncing the file fails (e.g. disk
     *         full), naming the file; the file is then deleted
     */
    @Override
    public StreamStateHandle closeAndGetHandle() throws IOException {
        ensureOpen();
        if (state == State.BUFFERING) {
            transition(State.CLOSED);
            return new ByteStreamStateHandle(Arrays.copyOf(buffer, bufferPos), checksum());
        }
        try {
            writeBuffer();
            channel.force(true);
            channel.close();
        } catch (IOException e) {
            discardFile(e);
            transition(State.CLOSED);
            throw new IOException("cannot complete checkpoint state file " + file + " (" + context + "): " + e, e);
        }
        transition(State.CLOSED);
        // checked after the file is complete: a discard that deleted owner before this check lists the shared
        // directory only after deleting owner, so it either saw this file or this check sees owner gone
        if (owner != null && !Files.isDirectory(owner)) {
            try {
                Files.deleteIfExists(file);
            } catch (IOException e) {
                LOG.warn("Could not delete {} of a discarded checkpoint ({})", file, context, e);
            }
            throw new IOException("checkpoint directory " + owner + " (" + context + ") was discarded while " + file
                    + " was written (the checkpoint was aborted); the file is deleted");
        }
        return new FileStateHandle(file.toAbsolutePath().toString(), bytesInFile, checksum());
    }

    private OptionalInt checksum() {
        return OptionalInt.of((int) crc.getValue());
    }

    /** Discards the stream: deletes its file, if any. Idempotent; does nothing after {@link #closeAndGetHandle()}. */
    @Override
    public void close() {
        if (state == State.CLOSED) {
            return;
        }
        boolean hadFile = state == State.WRITING_FILE;
        transition(State.CLOSED);
        if (hadFile) {
            discardFile(null);
        }
    }

    private void spill() throws IOException {
        if (state == State.BUFFERING) {
            Path f = directory.resolve(UUID.randomUUID().toString());
            try {
                channel = FileChannel.open(f, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
            } catch (IOException e) {
                throw new IOException("cannot create checkpoint state file " + f + " (" + context + "): " + e, e);
            }
            file = f;
            transition(State.WRITING_FILE);
        }
        writeBuffer();
    }

    private void writeBuffer() throws IOException {
        writeToFile(ByteBuffer.wrap(buffer, 0, bufferPos));
        bufferPos = 0;
    }

    private void writeToFile(ByteBuffer bytes) throws IOException {
        try {
            while (bytes.hasRemaining()) {
                bytesInFile += channel.write(bytes);
            }
        } catch (IOException e) {
            throw new IOException("cannot write checkpoint state file " + file + " (" + context + ", "
                    + bytesInFile + " bytes written): " + e, e);
        }
    }

    private void discardFile(IOException cause) {
        try {
            channel.close();
            Files.deleteIfExists(file);
        } catch (IOException e) {
            if (cause != null) {
                cause.addSuppressed(e);
            } else {
                LOG.warn("Could not delete discarded checkpoint state file {} ({})", file, context, e);
            }
        }
    }

    private void ensureOpen() throws IOException {
        if (state == State.CLOSED) {
            throw new IOException("checkpoint state stream " + (file != null ? file : "in " + directory)
                    + " (" + context + ") is closed");
        }
    }

    private void transition(State next) {
        if (!state.canMoveTo(next)) {
            throw new IllegalStateException("checkpoint state stream (" + context + "): illegal transition "
                    + state + " -> " + next);
        }
        state = next;
    }
}
