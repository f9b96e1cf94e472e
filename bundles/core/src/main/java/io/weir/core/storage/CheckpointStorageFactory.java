package io.weir.core.storage;

import io.weir.core.config.Configuration;

import java.io.IOException;

/** Creates the {@link CheckpointStorage} of a job; found as an OSGi service or through ServiceLoader. */
public interface CheckpointStorageFactory {
    /** @return the storage type name, e.g. {@code "filesystem"} */
    String type();

    /**
     * @param config job configuration (e.g. {@code execution.checkpointing.dir})
     * @param jobName the job
     * @throws IOException if the base directory cannot be created or written
     */
    CheckpointStorage create(Configuration config, String jobName) throws IOException;
}
