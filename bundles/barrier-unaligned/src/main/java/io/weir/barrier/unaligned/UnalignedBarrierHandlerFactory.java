package io.weir.barrier.unaligned;

import io.weir.core.barrier.AbstractBarrierHandlerFactory;
import io.weir.core.barrier.BarrierHandlerContext;
import io.weir.core.barrier.CheckpointBarrierHandler;
import io.weir.core.barrier.CheckpointBarrierHandlerFactory;
import org.osgi.service.component.annotations.Component;

/**
 * Creates {@link UnalignedBarrierHandler}s, type {@value #TYPE} (PROTOCOL.md §6). The runtime uses
 * it when {@code execution.checkpointing.unaligned.enabled} is true or
 * {@code execution.checkpointing.aligned-checkpoint-timeout} is above 0. Registered as a
 * Declarative Services component with {@code weir.type=unaligned} and listed in
 * {@code META-INF/services} for use without OSGi. Stateless, thread-safe.
 */
@Component(service = CheckpointBarrierHandlerFactory.class,
        property = "weir.type=" + UnalignedBarrierHandlerFactory.TYPE)
public final class UnalignedBarrierHandlerFactory extends AbstractBarrierHandlerFactory {
    /** The handler kind this factory serves. */
    public static final String TYPE = "unaligned";

    /** Creates the factory (also the ServiceLoader and DS constructor). */
    public UnalignedBarrierHandlerFactory() {
        super(TYPE);
    }

    /**
     * @param context the task's inputs and actions; must support the in-flight persistence,
     *     priority barrier and alignment timer methods of {@link BarrierHandlerContext}
     * @param taskName for logs and error messages
     * @return a new handler in WAITING_FOR_FIRST_BARRIER; the job configuration is not read (the
     *     alignment kind and timeout travel with each barrier's
     *     {@link io.weir.core.checkpoint.CheckpointOptions})
     */
    @Override
    protected CheckpointBarrierHandler newHandler(BarrierHandlerContext context, String taskName) {
        return new UnalignedBarrierHandler(context, taskName);
    }
}
