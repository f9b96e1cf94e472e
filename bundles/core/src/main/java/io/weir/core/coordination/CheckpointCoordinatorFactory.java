package io.weir.core.coordination;

/** Creates a job's checkpoint coordinator; found as an OSGi service or through ServiceLoader. */
public interface CheckpointCoordinatorFactory {
    /** @return a new coordinator; it starts no threads until {@link CheckpointCoordinatorGateway#startCheckpointScheduler} */
    CheckpointCoordinatorGateway create(CheckpointCoordinatorContext context);
}
