package io.weir.runtime.scheduler;

import io.weir.core.checkpoint.StreamStateHandle;
import io.weir.core.storage.CheckpointStateOutputStream;
import io.weir.core.storage.CheckpointStreamFactory;

import java.io.ByteArrayOutputStream;

/** A {@link CheckpointStreamFactory} whose streams become inline byte handles: state snapshots without files. */
public final class MemoryStreams implements CheckpointStreamFactory {
    @Override
    public CheckpointStateOutputStream createOutputStream() {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        return new CheckpointStateOutputStream() {
            @Override
            public long position() {
                return bytes.size();
            }

            @Override
            public void write(int b) {
                bytes.write(b);
            }

            @Override
            public StreamStateHandle closeAndGetHandle() {
                return new StreamStateHandle.ByteStreamStateHandle(bytes.toByteArray());
            }
        };
    }
}
