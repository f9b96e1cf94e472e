package io.weir.core.state;

import io.weir.api.Row;
import io.weir.api.serialization.TypeSerializer;
import io.weir.core.checkpoint.KeyGroupsStateHandle;

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
 */
public record KeyedStateBackendParameters(String jobName, String operatorId, int subtaskIndex, int maxParallelism,
        KeyGroupRange keyGroupRange, TypeSerializer<Row> keySerializer, List<KeyGroupsStateHandle> restoreState) {
    public KeyedStateBackendParameters {
        restoreState = List.copyOf(restoreState);
    }
}
