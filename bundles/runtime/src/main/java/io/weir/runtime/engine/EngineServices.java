package io.weir.runtime.engine;

import io.weir.core.barrier.CheckpointBarrierHandlerFactory;
import io.weir.core.coordination.CheckpointCoordinatorFactory;
import io.weir.core.ha.CheckpointRecoveryFactory;
import io.weir.core.plugin.PluginRegistry;
import io.weir.core.state.StateBackend;
import io.weir.core.storage.CheckpointStorageFactory;

import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ScheduledExecutorService;

/**
 * The services the engine is assembled from; in OSGi each comes from another bundle, outside OSGi
 * from ServiceLoader ({@link LocalEngine#fromServiceLoader}).
 *
 * @param plugins plugin factories
 * @param stateBackends by type ({@code state.backend.type}); a live, thread-safe map in OSGi (backends come and go)
 * @param storage checkpoint storage factory
 * @param barrierHandlers by type: "aligned", "at-least-once", "unaligned"; live like {@code stateBackends}
 * @param coordinators creates each job's checkpoint coordinator
 * @param recovery creates each job's ID counter and completed store
 * @param asyncOperations the AsyncOperations pool writing snapshots
 * @param timers engine timers (buffer timeout flushes, restart delays)
 */
public record EngineServices(PluginRegistry plugins, Map<String, StateBackend> stateBackends, CheckpointStorageFactory storage,
        Map<String, CheckpointBarrierHandlerFactory> barrierHandlers, CheckpointCoordinatorFactory coordinators,
        CheckpointRecoveryFactory recovery, ExecutorService asyncOperations, ScheduledExecutorService timers) {
}
