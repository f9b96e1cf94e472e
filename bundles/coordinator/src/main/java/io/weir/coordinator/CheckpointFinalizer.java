package io.weir.coordinator;

import io.weir.core.checkpoint.CheckpointMetadata;
import io.weir.core.checkpoint.CompletedCheckpoint;
import io.weir.core.checkpoint.MasterState;
import io.weir.core.checkpoint.OperatorState;
import io.weir.core.checkpoint.OperatorSubtaskState;
import io.weir.core.coordination.CheckpointTriggerKind;
import io.weir.core.coordination.OperatorInfo;
import io.weir.core.state.KeyHashVersion;
import io.weir.core.storage.CheckpointStorage;

import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.LongSupplier;

/**
 * Turns a fully acknowledged {@link PendingCheckpoint} into a {@link CompletedCheckpoint}: assembles
 * the {@link CheckpointMetadata} from the acks and writes {@code _metadata} durably; only then is the
 * checkpoint complete (PROTOCOL.md §2). Stateless apart from its collaborators; called on the
 * checkpoint timer thread.
 */
final class CheckpointFinalizer {
    private final String jobName;
    private final List<OperatorInfo> operators;
    private final CheckpointStorage storage;
    private final LongSupplier clock;

    /**
     * @param jobName the job
     * @param operators every operator of the job (parallelism, max parallelism)
     * @param storage where {@code _metadata} goes
     * @param clock ms since the epoch, for the completion timestamp
     */
    CheckpointFinalizer(String jobName, List<OperatorInfo> operators, CheckpointStorage storage, LongSupplier clock) {
        this.jobName = jobName;
        this.operators = List.copyOf(operators);
        this.storage = storage;
        this.clock = clock;
    }

    /**
     * @param keyHashVersion how the job places keys in key groups (recorded in {@code _metadata})
     * @return the completed checkpoint, its completion timestamp taken after {@code _metadata} is durable
     * @throws IOException if the storage cannot write {@code _metadata}
     * @throws IllegalStateException if an ack carries state of an operator the job does not have, or
     *         two acks carry state for the same operator subtask
     */
    CompletedCheckpoint finalizeCheckpoint(PendingCheckpoint pending, KeyHashVersion keyHashVersion) throws IOException {
        CheckpointMetadata metadata = assembleMetadata(pending, keyHashVersion);
        String pointer = storage.finalizeCheckpoint(metadata);
        return new CompletedCheckpoint(pending.checkpointId(), pending.triggerTimestamp(), clock.getAsLong(),
                pointer, metadata);
    }

    /**
     * Every operator of the job gets an {@link OperatorState} (empty for stateless ones); each ack's
     * per-operator state goes under the ack's subtask index; the job's key placement is {@code keyHashVersion}.
     */
    CheckpointMetadata assembleMetadata(PendingCheckpoint pending, KeyHashVersion keyHashVersion) {
        long id = pending.checkpointId();
        Map<String, Map<Integer, OperatorSubtaskState>> byOperator = new LinkedHashMap<>();
        for (OperatorInfo op : operators) {
            byOperator.put(op.operatorId(), new HashMap<>());
        }
        for (PendingCheckpoint.Acknowledgement ack : pending.acknowledgements()) {
            for (Map.Entry<String, OperatorSubtaskState> e : ack.state().subtaskStates().entrySet()) {
                Map<Integer, OperatorSubtaskState> subtasks = byOperator.get(e.getKey());
                if (subtasks == null) {
                    throw new IllegalStateException("checkpoint " + id + " of job " + jobName + ": task " + ack.task()
                            + " acknowledged state for operator '" + e.getKey() + "', which the job does not have");
                }
                if (subtasks.putIfAbsent(ack.task().subtaskIndex(), e.getValue()) != null) {
                    throw new IllegalStateException("checkpoint " + id + " of job " + jobName + ": two acks carry state for "
                            + "operator '" + e.getKey() + "' subtask " + ack.task().subtaskIndex() + " (latest from " + ack.task() + ")");
                }
            }
        }
        Map<String, OperatorState> states = new LinkedHashMap<>();
        for (OperatorInfo op : operators) {
            states.put(op.operatorId(), new OperatorState(op.operatorId(), op.parallelism(), op.maxParallelism(),
                    byOperator.get(op.operatorId())));
        }
        boolean isFinal = pending.request().kind() == CheckpointTriggerKind.FINAL;
        List<MasterState> masterStates = new ArrayList<>();
        pending.masterStates().forEach((hookId, bytes) -> masterStates.add(new MasterState(hookId, bytes)));
        return new CheckpointMetadata(id, jobName, pending.triggerTimestamp(), isFinal, states, masterStates, keyHashVersion);
    }
}
