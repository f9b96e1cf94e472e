package io.weir.state.heap;

import io.weir.core.checkpoint.StreamStateHandle;
import io.weir.core.storage.CheckpointStateOutputStream;
import io.weir.core.storage.CheckpointStreamFactory;

import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Test double of checkpoint storage: every stream is a file in a directory. With a gate, a stream's
 * first write signals {@link #writing} and then blocks until the gate opens, which keeps an
 * asynchronous snapshot "in progress" for as long as a test needs.
 */
public final class FileStreamFactory implements CheckpointStreamFactory {
    private final Path dir;
    private final CountDownLatch gate;
    /** Counted down when a gated stream receives its first byte. */
    public final CountDownLatch writing = new CountDownLatch(1);
    /** Streams created so far. */
    public final AtomicInteger created = new AtomicInteger();

    /** @param dir where files go */
    public FileStreamFactory(Path dir) {
        this(dir, null);
    }

    /** @param gate null for no gate */
    public FileStreamFactory(Path dir, CountDownLatch gate) {
        this.dir = dir;
        this.gate = gate;
    }

    @Override
    public CheckpointStateOutputStream createOutputStream() throws IOException {
        created.incrementAndGet();
        Path file = dir.resolve(UUID.randomUUID().toString());
        OutputStream out = new BufferedOutputStream(Files.newOutputStream(file));
        return new CheckpointStateOutputStream() {
            private long position;
            private boolean gated = gate != null;

            private void awaitGate() throws IOException {
                if (gated) {
                    gated = false;
                    writing.countDown();
                    try {
                        if (!gate.await(30, TimeUnit.SECONDS)) {
                            throw new IOException("gate never opened");
                        }
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        throw new IOException("interrupted", e);
                    }
                }
            }

            @Override
            public void write(int b) throws IOException {
                awaitGate();
                out.write(b);
                position++;
            }

            @Override
            public void write(byte[] b, int off, int len) throws IOException {
                awaitGate();
                out.write(b, off, len);
                position += len;
            }

            @Override
            public long position() {
                return position;
            }

            @Override
            public StreamStateHandle closeAndGetHandle() throws IOException {
                out.close();
                return new StreamStateHandle.FileStateHandle(file.toString(), position);
            }

            @Override
            public void close() throws IOException {
                out.close();
                Files.deleteIfExists(file);
            }
        };
    }
}
