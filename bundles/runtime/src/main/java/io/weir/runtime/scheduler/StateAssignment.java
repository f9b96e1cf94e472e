package io.weir.runtime.scheduler;

import io.weir.core.checkpoint.CheckpointMetadata;
import io.weir.core.checkpoint.KeyGroupsStateHandle;
import io.weir.core.checkpoint.OperatorState;
import io.weir.core.checkpoint.OperatorStateHandle;
import io.weir.core.checkpoint.OperatorSubtaskState;
import io.weir.core.job.JobVertex;
import io.weir.core.state.KeyGroupAssignment;
import io.weir.core.state.KeyGroupRange;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Decides which checkpointed state each new subtask restores (PROTOCOL.md §7). With unchanged
 * parallelism a subtask gets exactly what the same index checkpointed. With another parallelism,
 * keyed state follows key groups (every handle overlapping the subtask's range; the backend reads
 * only its groups) and operator state handles are dealt round-robin.
 */
final class StateAssignment {
    private StateAssignment() {
    }

    static OperatorSubtaskState assign(CheckpointMetadata metadata, JobVertex vertex, int subtask, int maxParallelism) {
        OperatorState os = metadata.operatorStates().get(vertex.id());
        if (os == null) {
            return OperatorSubtaskState.empty();
        }
        if (os.parallelism() == vertex.parallelism()) {
            return os.subtaskStates().getOrDefault(subtask, OperatorSubtaskState.empty());
        }
        KeyGroupRange range = KeyGroupAssignment.rangeForSubtask(maxParallelism, vertex.parallelism(), subtask);
        List<KeyGroupsStateHandle> keyed = new ArrayList<>();
        List<OperatorStateHandle> operator = new ArrayList<>();
        for (Map.Entry<Integer, OperatorSubtaskState> e : os.subtaskStates().entrySet()) {
            for (KeyGroupsStateHandle h : e.getValue().keyedState()) {
                if (h.range().start() <= range.end() && range.start() <= h.range().end()) {
                    keyed.add(h);
                }
            }
            if (e.getKey() % vertex.parallelism() == subtask) {
                operator.addAll(e.getValue().operatorState());
            }
        }
        return new OperatorSubtaskState(operator, keyed);
    }
}
