package io.weir.barrier.aligned;

import io.weir.core.barrier.BarrierHandlerContext;
import io.weir.core.barrier.CheckpointBarrierHandler;
import io.weir.core.barrier.CheckpointBarrierHandlerFactory;
import io.weir.core.config.Configuration;
import java.util.Objects;
import org.osgi.service.component.annotations.Component;

/**
 * Creates {@link BarrierTracker}s, type {@value #TYPE} (AT_LEAST_ONCE, PROTOCOL.md §4).
 * Registered as a Declarative Services component with {@code weir.type=at-least-once} and listed
 * in {@code META-INF/services} for use without OSGi. Stateless, thread-safe.
 */
@Component(service = CheckpointBarrierHandlerFactory.class, property = "weir.type=" + BarrierTrackerFactory.TYPE)
public final class BarrierTrackerFactory implements CheckpointBarrierHandlerFactory {
    /** The handler kind this factory serves. */
    public static final String TYPE = "at-least-once";

    /** Creates the factory (also the ServiceLoader and DS constructor). */
    public BarrierTrackerFactory() {
    }

    /** @return {@value #TYPE} */
    @Override
    public String type() {
        return TYPE;
    }

    /**
     * @param context the task's inputs and actions
     * @param config job configuration (unused: the tracker has no options)
     * @param taskName for logs and error messages
     * @return a new tracker with no checkpoint in progress, to be used on the task thread only
     * @throws IllegalArgumentException if the context reports fewer than one input channel
     * @throws NullPointerException if an argument is null
     */
    @Override
    public CheckpointBarrierHandler create(BarrierHandlerContext context, Configuration config, String taskName) {
        Objects.requireNonNull(config, "config");
        return new BarrierTracker(context, taskName);
    }
}
