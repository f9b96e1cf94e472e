package io.weir.barrier.aligned;

import io.weir.core.barrier.AbstractBarrierHandlerFactory;
import io.weir.core.barrier.BarrierHandlerContext;
import io.weir.core.barrier.CheckpointBarrierHandler;
import io.weir.core.barrier.CheckpointBarrierHandlerFactory;
import org.osgi.service.component.annotations.Component;

/**
 * Creates {@link AlignedBarrierHandler}s, type {@value #TYPE} (EXACTLY_ONCE, PROTOCOL.md §4).
 * Registered as a Declarative Services component with {@code weir.type=aligned} and listed in
 * {@code META-INF/services} for use without OSGi. Stateless, thread-safe.
 */
@Component(service = CheckpointBarrierHandlerFactory.class, property = "weir.type=" + AlignedBarrierHandlerFactory.TYPE)
public final class AlignedBarrierHandlerFactory extends AbstractBarrierHandlerFactory {
    /** The handler kind this factory serves. */
    public static final String TYPE = "aligned";

    /** Creates the factory (also the ServiceLoader and DS constructor). */
    public AlignedBarrierHandlerFactory() {
        super(TYPE);
    }

    /** @return a new handler in WAITING_FOR_FIRST_BARRIER; the job configuration is not read (no options) */
    @Override
    protected CheckpointBarrierHandler newHandler(BarrierHandlerContext context, String taskName) {
        return new AlignedBarrierHandler(context, taskName);
    }
}
