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
    final CountDownLatch writing = new CountDownLatch(1);

    MemoryStreamFactory() {
        this(null);
    }

    MemoryStreamFactory(CountDownLatch gate) {
        this.gate = gate;
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
                return new StreamStateHandle.ByteStreamStateHandle(bytes.toByteArray());
            }

            @Override
            public void close() {
            }
        };
    }
}
