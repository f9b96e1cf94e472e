package io.weir.core.checkpoint;

import java.util.Map;

/**
 * The content of a checkpoint's {@code _metadata} file: every operator's state handles. Written
 * last; only once it is durable is the checkpoint complete (PROTOCOL.md §2). The binary format is
 * owned by the storage bundle and documented in {@code docs/checkpoint-format.md}.
 *
 * @param checkpointId the checkpoint id
 * @param jobName the job
 * @param timestamp checkpoint creation time, ms since the epoch
 * @param isFinal whether this is the final checkpoint of a bounded job
 * @param operatorStates operator id → its state
 */
public record CheckpointMetadata(long checkpointId, String jobName, long timestamp, boolean isFinal,
        Map<String, OperatorState> operatorStates) {
    public CheckpointMetadata {
        operatorStates = Map.copyOf(operatorStates);
    }

    /** @return the total bytes of all state handles */
    public long stateSize() {
        return operatorStates.values().stream().mapToLong(OperatorState::stateSize).sum();
    }
}
