package io.weir.core.storage;

import java.io.IOException;

/** Creates state streams inside one checkpoint's location. Thread-safe. */
public interface CheckpointStreamFactory {
    /**
     * @return a new stream whose bytes belong to this checkpoint
     * @throws IOException if the location cannot be written, naming the directory
     */
    CheckpointStateOutputStream createOutputStream() throws IOException;
}
