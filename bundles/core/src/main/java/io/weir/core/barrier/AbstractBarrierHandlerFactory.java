package io.weir.core.barrier;

import io.weir.core.config.Configuration;
import java.util.Objects;

/**
 * Base of a {@link CheckpointBarrierHandlerFactory} whose handlers take no configuration: the
 * kind is fixed at construction and each {@link #create} checks its arguments and returns
 * {@link #newHandler}. Subclasses stay the Declarative Services components and
 * {@code ServiceLoader} providers (public no-arg constructor). Stateless, thread-safe.
 */
public abstract class AbstractBarrierHandlerFactory implements CheckpointBarrierHandlerFactory {
    private final String type;

    /**
     * @param type the handler kind, e.g. {@code "aligned"}
     * @throws NullPointerException if {@code type} is null
     */
    protected AbstractBarrierHandlerFactory(String type) {
        this.type = Objects.requireNonNull(type, "type");
    }

    /** @return the handler kind given at construction */
    @Override
    public final String type() {
        return type;
    }

    /**
     * @param context the task's inputs and actions
     * @param config job configuration (checked for null, otherwise unused)
     * @param taskName for logs and error messages
     * @return a new handler with no checkpoint in progress, to be used on the task thread only
     * @throws IllegalArgumentException if the context reports fewer than one input channel
     * @throws NullPointerException if an argument is null
     */
    @Override
    public final CheckpointBarrierHandler create(BarrierHandlerContext context, Configuration config, String taskName) {
        Objects.requireNonNull(config, "config");
        return newHandler(context, taskName);
    }

    /**
     * @param context the task's inputs and actions, not yet checked
     * @param taskName for logs and error messages, not yet checked
     * @return a new handler
     * @throws IllegalArgumentException if the context reports fewer than one input channel
     * @throws NullPointerException if an argument is null
     */
    protected abstract CheckpointBarrierHandler newHandler(BarrierHandlerContext context, String taskName);
}
