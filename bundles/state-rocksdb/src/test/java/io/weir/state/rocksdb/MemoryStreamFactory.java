package io.weir.state.rocksdb;

import io.weir.core.checkpoint.StreamStateHandle;
import io.weir.core.storage.CheckpointStateOutputStream;
import io.weir.core.storage.CheckpointStreamFactory;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * Test double of checkpoint storage: streams become inline handles. With a gate, a stream's first write
 * counts down {@link #writing} and then blocks until the gate opens, keeping an asynchronous snapshot
 * "in progress" for as long as a test needs.
 */
final class MemoryStreamFactory implements CheckpointStreamFactory {
    private final CountDownLatch gate;
    private final boolean shared;
    final CountDownLatch writing = new CountDownLatch(1);
    /** Shared streams created so far. */
    final java.util.concurrent.atomic.AtomicInteger sharedCreated = new java.util.concurrent.atomic.AtomicInteger();

    MemoryStreamFactory() {
        this(null, false);
    }

    MemoryStreamFactory(CountDownLatch gate) {
        this(gate, false);
    }

    /** @param shared whether this is a checkpoint location with shared state (false: a savepoint's) */
    MemoryStreamFactory(CountDownLatch gate, boolean shared) {
        this.gate = gate;
        this.shared = shared;
    }

    /** A checkpoint location with shared state. */
    static MemoryStreamFactory withSharedState() {
        return new MemoryStreamFactory(null, true);
    }

    @Override
    public boolean supportsSharedState() {
        return shared;
    }

    @Override
    public CheckpointStateOutputStream createSharedOutputStream() {
        if (!shared) {
            throw new UnsupportedOperationException("no shared state");
        }
        sharedCreated.incrementAndGet();
        return createOutputStream();
    }

    @Override
    public CheckpointStateOutputStream createOutputStream() {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        return new CheckpointStateOutputStream() {
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
                bytes.write(b);
            }

            @Override
            public void write(byte[] b, int off, int len) throws IOException {
                awaitGate();
                bytes.write(b, off, len);
            }

            @Override
            public long position() {
                return bytes.size();
            }

            @Override
            public StreamStateHandle closeAndGetHandle() {
                java.util.zip.CRC32 crc = new java.util.zip.CRC32();
                byte[] data = bytes.toByteArray();
                crc.update(data);
                return new StreamStateHandle.ByteStreamStateHandle(data, java.util.OptionalInt.of((int) crc.getValue()));
            }

            @Override
            public void close() {
            }
        };
    }
}
