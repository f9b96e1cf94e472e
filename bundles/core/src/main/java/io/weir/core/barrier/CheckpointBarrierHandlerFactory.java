package io.weir.core.barrier;

import io.weir.core.config.Configuration;

/**
 * Creates barrier handlers of one kind; found as an OSGi service or through ServiceLoader. The
 * runtime picks the factory whose {@link #type()} matches the job's checkpointing mode:
 * {@code "aligned"} (EXACTLY_ONCE), {@code "at-least-once"}, {@code "unaligned"}.
 */
public interface CheckpointBarrierHandlerFactory {
    /** @return the handler kind */
    String type();

    /**
     * @param context the task's inputs and actions
     * @param config job configuration (timeouts)
     * @param taskName for logs
     */
    CheckpointBarrierHandler create(BarrierHandlerContext context, Configuration config, String taskName);
}
