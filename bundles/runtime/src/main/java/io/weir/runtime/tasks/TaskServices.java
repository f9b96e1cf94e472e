package io.weir.runtime.tasks;

import io.weir.core.barrier.CheckpointBarrierHandlerFactory;
import io.weir.core.coordination.CheckpointResponder;
import io.weir.core.plugin.PluginRegistry;
import io.weir.core.state.StateBackend;
import io.weir.core.storage.CheckpointStorage;

import java.util.concurrent.Executor;

/**
 * The engine services a task uses.
 *
 * @param plugins plugin factories
 * @param stateBackend creates state backends
 * @param storage the job's checkpoint storage
 * @param responder where acks and declines go
 * @param barrierHandlers creates the barrier handler of input tasks
 * @param asyncOperations the AsyncOperations pool
 * @param listener the job master
 * @param timers engine timers (alignment timeouts, output-queue barrier timeouts)
 */
public record TaskServices(PluginRegistry plugins, StateBackend stateBackend, CheckpointStorage storage,
        CheckpointResponder responder, CheckpointBarrierHandlerFactory barrierHandlers, Executor asyncOperations,
        TaskListener listener, java.util.concurrent.ScheduledExecutorService timers) {
}
