package io.weir.barrier.aligned;

import io.weir.core.barrier.AbstractBarrierHandlerFactory;
import io.weir.core.barrier.BarrierHandlerContext;
import io.weir.core.barrier.CheckpointBarrierHandler;
import io.weir.core.barrier.CheckpointBarrierHandlerFactory;
import org.osgi.service.component.annotations.Component;

/**
 * Creates {@link BarrierTracker}s, type {@value #TYPE} (AT_LEAST_ONCE, PROTOCOL.md §4).
 * Registered as a Declarative Services component with {@code weir.type=at-least-once} and listed
 * in {@code META-INF/services} for use without OSGi. Stateless, thread-safe.
 */
@Component(service = CheckpointBarrierHandlerFactory.class, property = "weir.type=" + BarrierTrackerFactory.TYPE)
public final class BarrierTrackerFactory extends AbstractBarrierHandlerFactory {
    /** The handler kind this factory serves. */
    public static final String TYPE = "at-least-once";

    /** Creates the factory (also the ServiceLoader and DS constructor). */
    public BarrierTrackerFactory() {
        super(TYPE);
    }

    /** @return a new tracker with no checkpoint in progress; the job configuration is not read (no options) */
    @Override
    protected CheckpointBarrierHandler newHandler(BarrierHandlerContext context, String taskName) {
        return new BarrierTracker(context, taskName);
    }
}
