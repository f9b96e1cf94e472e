package io.weir.storage.fs;

import io.weir.core.config.CheckpointingOptions;
import io.weir.core.config.Configuration;
import io.weir.core.storage.CheckpointStorage;
import io.weir.core.storage.CheckpointStorageFactory;
import org.osgi.service.component.annotations.Component;

import java.io.IOException;
import java.nio.file.Path;

/**
 * Creates {@link FsCheckpointStorage} for a job under {@code execution.checkpointing.dir}
 * ({@link CheckpointingOptions#DIRECTORY}, default {@code checkpoints}, relative to the working
 * directory): the job's checkpoints go to {@code <dir>/<jobName>/chk-<id>/}.
 *
 * <p>Registered as an OSGi service with {@code weir.type=filesystem}; outside OSGi it is found through
 * {@code ServiceLoader} ({@code META-INF/services}). Stateless and thread-safe.
 */
@Component(service = CheckpointStorageFactory.class, property = "weir.type=" + FsCheckpointStorageFactory.TYPE)
public final class FsCheckpointStorageFactory implements CheckpointStorageFactory {
    /** The storage type name. */
    public static final String TYPE = "filesystem";

    /** Public no-arg constructor for DS and ServiceLoader. */
    public FsCheckpointStorageFactory() {
    }

    /** @return {@value #TYPE} */
    @Override
    public String type() {
        return TYPE;
    }

    /**
     * @throws IllegalArgumentException if {@code jobName} is not usable as one directory name (empty,
     *         {@code .}, {@code ..}, or containing a path separator)
     * @throws IOException naming the directory if the job directory cannot be created or is not writable
     */
    @Override
    public CheckpointStorage create(Configuration config, String jobName) throws IOException {
        return new FsCheckpointStorage(Path.of(config.get(CheckpointingOptions.DIRECTORY)), jobName);
    }
}
