package io.weir.coordinator;

import io.weir.core.coordination.CheckpointCoordinatorContext;
import io.weir.core.coordination.CheckpointCoordinatorFactory;
import io.weir.core.coordination.CheckpointCoordinatorGateway;
import org.osgi.service.component.annotations.Component;

/**
 * Creates a {@link CheckpointCoordinator} with its own daemon "checkpoint timer (job)" thread
 * (started lazily on first use). Registered as an OSGi DS service ({@code weir.type=default}) and
 * listed in {@code META-INF/services} for use without OSGi. Stateless and thread-safe.
 */
@Component(service = CheckpointCoordinatorFactory.class, property = "weir.type=default")
public final class DefaultCheckpointCoordinatorFactory implements CheckpointCoordinatorFactory {

    /** Public no-arg constructor for DS and ServiceLoader. */
    public DefaultCheckpointCoordinatorFactory() {
    }

    /**
     * @throws IllegalArgumentException if an {@code execution.checkpointing.*} option is out of range, naming its key
     */
    @Override
    public CheckpointCoordinatorGateway create(CheckpointCoordinatorContext context) {
        return new CheckpointCoordinator(context, new ScheduledExecutorCheckpointTimer(context.jobName()));
    }
}
