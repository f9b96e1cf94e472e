package io.weir.barrier.unaligned;

import io.weir.core.barrier.BarrierHandlerContext;
import io.weir.core.barrier.CheckpointBarrierHandler;
import io.weir.core.barrier.CheckpointBarrierHandlerFactory;
import io.weir.core.config.Configuration;
import java.util.Objects;
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
public final class UnalignedBarrierHandlerFactory implements CheckpointBarrierHandlerFactory {
    /** The handler kind this factory serves. */
    public static final String TYPE = "unaligned";

    /** Creates the factory (also the ServiceLoader and DS constructor). */
    public UnalignedBarrierHandlerFactory() {
    }

    /** @return {@value #TYPE} */
    @Override
    public String type() {
        return TYPE;
    }

    /**
     * @param context the task's inputs and actions; must support the in-flight persistence,
     *     priority barrier and alignment timer methods of {@link BarrierHandlerContext}
     * @param config job configuration (unused: the alignment kind and timeout travel with each
     *     barrier's {@link io.weir.core.checkpoint.CheckpointOptions})
     * @param taskName for logs and error messages
     * @return a new handler in WAITING_FOR_FIRST_BARRIER, to be used on the task thread only
     * @throws IllegalArgumentException if the context reports fewer than one input channel
     * @throws NullPointerException if an argument is null
     */
    @Override
    public CheckpointBarrierHandler create(BarrierHandlerContext context, Configuration config, String taskName) {
        Objects.requireNonNull(config, "config");
        return new UnalignedBarrierHandler(context, taskName);
    }
}
