package io.weir.core.state;

import io.weir.api.Row;
import io.weir.api.serialization.TypeSerializer;
import io.weir.core.checkpoint.KeyGroupsStateHandle;
import io.weir.core.config.Configuration;

import java.util.List;

/**
 * What a keyed backend needs to know about its subtask.
 *
 * @param jobName job, for logs and errors
 * @param operatorId operator, for logs and errors
 * @param subtaskIndex subtask, for logs and errors
 * @param maxParallelism number of key groups
 * @param keyGroupRange the key groups this subtask owns
 * @param keySerializer serializer of keys (rows of the key fields)
 * @param restoreState handles to restore from (empty on a fresh start); a handle may cover more key
 *        groups than the range, in which case only the owned ones are read
 * @param config the job's configuration, for backend options ({@code StateBackendOptions})
 */
public record KeyedStateBackendParameters(String jobName, String operatorId, int subtaskIndex, int maxParallelism,
        KeyGroupRange keyGroupRange, TypeSerializer<Row> keySerializer, List<KeyGroupsStateHandle> restoreState,
        Configuration config) {
    /** @throws NullPointerException if {@code config} is null */
    public KeyedStateBackendParameters {
        restoreState = List.copyOf(restoreState);
        java.util.Objects.requireNonNull(config, "config");
    }

    /** Parameters with an empty configuration (every backend option at its default). */
    public KeyedStateBackendParameters(String jobName, String operatorId, int subtaskIndex, int maxParallelism,
            KeyGroupRange keyGroupRange, TypeSerializer<Row> keySerializer, List<KeyGroupsStateHandle> restoreState) {
        this(jobName, operatorId, subtaskIndex, maxParallelism, keyGroupRange, keySerializer, restoreState,
                Configuration.empty());
    }
}
