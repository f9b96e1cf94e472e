package io.weir.core.checkpoint;

import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

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
 * @param masterStates the states of the job's master hooks, at most one per hook id (PROTOCOL.md §2)
 */
public record CheckpointMetadata(long checkpointId, String jobName, long timestamp, boolean isFinal,
        Map<String, OperatorState> operatorStates, List<MasterState> masterStates) {
    /** @throws IllegalArgumentException if two master states have the same hook id */
    public CheckpointMetadata {
        operatorStates = Map.copyOf(operatorStates);
        masterStates = List.copyOf(masterStates);
        Set<String> ids = new HashSet<>();
        for (MasterState m : masterStates) {
            if (!ids.add(m.hookId())) {
                throw new IllegalArgumentException("checkpoint " + checkpointId + " of job " + jobName
                        + " has two states of master hook '" + m.hookId() + "'");
            }
        }
    }

    /** A checkpoint without master state (the job has no master hooks). */
    public CheckpointMetadata(long checkpointId, String jobName, long timestamp, boolean isFinal,
            Map<String, OperatorState> operatorStates) {
        this(checkpointId, jobName, timestamp, isFinal, operatorStates, List.of());
    }

    /**
     * @param operatorIds the operators of a job
     * @return the ids of the operators here that hold any state but are not in {@code operatorIds}, sorted
     */
    public java.util.SortedSet<String> operatorsWithStateOutside(Set<String> operatorIds) {
        java.util.SortedSet<String> outside = new java.util.TreeSet<>();
        for (OperatorState op : operatorStates.values()) {
            boolean hasState = op.subtaskStates().values().stream().anyMatch(s -> !s.operatorState().isEmpty()
                    || !s.keyedState().isEmpty() || !s.inputChannelState().isEmpty() || !s.resultSubpartitionState().isEmpty());
            if (hasState && !operatorIds.contains(op.operatorId())) {
                outside.add(op.operatorId());
            }
        }
        return outside;
    }

    /** @return the total bytes of all state handles and master states */
    public long stateSize() {
        return operatorStates.values().stream().mapToLong(OperatorState::stateSize).sum()
                + masterStates.stream().mapToLong(MasterState::size).sum();
    }
}
