package io.weir.core.storage;

import io.weir.core.checkpoint.StreamStateHandle;

import java.io.IOException;
import java.io.OutputStream;

/**
 * A stream a snapshot writes state into; closing it yields the handle of what was written.
 * Owned by one thread at a time (the AsyncOperations thread running the snapshot).
 */
public abstract class CheckpointStateOutputStream extends OutputStream {
    /** @return the number of bytes written so far */
    public abstract long position() throws IOException;

    /**
     * Flushes, makes the bytes durable and closes the stream.
     *
     * @return where the bytes are
     * @throws IOException if writing or syncing fails (e.g. disk full), naming the file
     */
    public abstract StreamStateHandle closeAndGetHandle() throws IOException;
}
