package io.weir.core.checkpoint;

import io.weir.core.state.KeyHashVersion;

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
 * @param keyHashVersion how the job placed its keys in key groups when it wrote this state; a job restored from
 *        here keeps it for its life ({@link KeyHashVersion})
 */
public record CheckpointMetadata(long checkpointId, String jobName, long timestamp, boolean isFinal,
        Map<String, OperatorState> operatorStates, List<MasterState> masterStates, KeyHashVersion keyHashVersion) {
    /**
     * @throws IllegalArgumentException if two master states have the same hook id
     * @throws NullPointerException if {@code keyHashVersion} is null
     */
    public CheckpointMetadata {
        java.util.Objects.requireNonNull(keyHashVersion, "keyHashVersion");
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

    /**
     * Metadata whose keyed state was placed with {@link KeyHashVersion#LEGACY}, as in every {@code _metadata} file
     * from before format version 7 (and in tests that build metadata by hand).
     */
    public CheckpointMetadata(long checkpointId, String jobName, long timestamp, boolean isFinal,
            Map<String, OperatorState> operatorStates, List<MasterState> masterStates) {
        this(checkpointId, jobName, timestamp, isFinal, operatorStates, masterStates, KeyHashVersion.LEGACY);
    }

    /** A checkpoint without master state (the job has no master hooks), placed with {@link KeyHashVersion#LEGACY}. */
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
