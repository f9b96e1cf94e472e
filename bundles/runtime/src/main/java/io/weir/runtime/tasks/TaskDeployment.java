package io.weir.runtime.tasks;

import io.weir.api.RowSerializer;
import io.weir.core.checkpoint.OperatorSubtaskState;
import io.weir.core.checkpoint.TaskId;
import io.weir.core.config.Configuration;
import io.weir.core.job.JobVertex;
import io.weir.runtime.io.network.BufferPool;
import io.weir.runtime.io.network.InputGate;
import io.weir.runtime.io.network.KeySelector;
import io.weir.runtime.io.network.RecordWriter;

import java.util.List;
import java.util.Map;

/**
 * Everything one task (a chain of operators, one subtask each) is deployed with.
 *
 * @param jobName job
 * @param taskId task and attempt
 * @param chain the chained vertices, head first
 * @param config job configuration
 * @param restoreState operator id → state to restore (empty on a fresh start)
 * @param restored whether the job was restored from a checkpoint
 * @param inputGate the task's input (null for a source chain)
 * @param inputSerializer serializer of input rows (null for a source chain)
 * @param headKeySelector key selector of a keyed head operator, else null
 * @param writers one per output edge of the chain's tail
 * @param outputPool the pool the writers take buffers from (null if there are no writers)
 */
public record TaskDeployment(String jobName, TaskId taskId, List<JobVertex> chain, Configuration config,
        Map<String, OperatorSubtaskState> restoreState, boolean restored, InputGate inputGate, RowSerializer inputSerializer,
        KeySelector headKeySelector, List<RecordWriter> writers, BufferPool outputPool) {
    public TaskDeployment {
        chain = List.copyOf(chain);
        restoreState = Map.copyOf(restoreState);
        writers = List.copyOf(writers);
    }

    /** @return the vertex id of the chain's head, which names the task */
    public String headId() {
        return chain.get(0).id();
    }
}
