package io.weir.core.coordination;

import io.weir.core.config.Configuration;
import io.weir.core.ha.CheckpointIDCounter;
import io.weir.core.ha.CompletedCheckpointStore;
import io.weir.core.storage.CheckpointStorage;

import java.util.List;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * What the runtime gives the coordinator of one job.
 *
 * @param jobName the job
 * @param config job configuration: the {@code execution.checkpointing.*} options
 * @param operators every operator, for metadata
 * @param tasks the tasks of the current execution attempt (changes on every restart)
 * @param storage checkpoint storage
 * @param idCounter checkpoint ids
 * @param store completed checkpoints
 * @param masterHooks snapshotted before tasks are triggered
 * @param failJob called when the tolerable-failure threshold is exceeded: the runtime fails over
 * @param statsListener told about every finished checkpoint
 */
public record CheckpointCoordinatorContext(String jobName, Configuration config, List<OperatorInfo> operators,
        Supplier<List<TaskCheckpointGateway>> tasks, CheckpointStorage storage, CheckpointIDCounter idCounter,
        CompletedCheckpointStore store, List<MasterHook> masterHooks, Consumer<Throwable> failJob,
        CheckpointStatsListener statsListener) {
    public CheckpointCoordinatorContext {
        operators = List.copyOf(operators);
        masterHooks = List.copyOf(masterHooks);
    }
}
