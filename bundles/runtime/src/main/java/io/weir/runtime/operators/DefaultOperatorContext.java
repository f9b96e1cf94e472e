package io.weir.runtime.operators;

import io.weir.api.operator.OperatorContext;
import io.weir.api.state.KeyedStateStore;
import io.weir.api.state.OperatorStateStore;
import io.weir.core.state.KeyedStateBackend;
import io.weir.core.state.OperatorStateBackend;

import java.util.OptionalLong;

/**
 * The runtime's {@link OperatorContext} of one operator subtask. Task thread only.
 *
 * @param jobName job
 * @param operatorId operator
 * @param subtaskIndex subtask
 * @param parallelism operator parallelism
 * @param isRestored whether state came from a checkpoint
 * @param operatorStateBackend non-keyed state
 * @param keyedStateBackend keyed state, null if the operator's input is not keyed
 * @param checkpointIntervalMs {@code execution.checkpointing.interval} in ms, empty when periodic checkpointing is off
 * @param timers the timer service, null if the operator's input is not keyed
 * @param sideOutputs emits a row to a named side output (drops rows of side outputs nobody consumes); null: drop all
 */
public record DefaultOperatorContext(String jobName, String operatorId, int subtaskIndex, int parallelism, boolean isRestored,
        OperatorStateBackend operatorStateBackend, KeyedStateBackend keyedStateBackend, OptionalLong checkpointIntervalMs,
        io.weir.api.operator.TimerService timers, java.util.function.BiConsumer<String, io.weir.api.Row> sideOutputs)
        implements OperatorContext {

    /** A context that does not know the checkpoint interval ({@link #checkpointIntervalMs()} empty), for tests. */
    public DefaultOperatorContext(String jobName, String operatorId, int subtaskIndex, int parallelism, boolean isRestored,
            OperatorStateBackend operatorStateBackend, KeyedStateBackend keyedStateBackend) {
        this(jobName, operatorId, subtaskIndex, parallelism, isRestored, operatorStateBackend, keyedStateBackend, OptionalLong.empty());
    }

    /** A context without timers and side outputs (sources, sinks). */
    public DefaultOperatorContext(String jobName, String operatorId, int subtaskIndex, int parallelism, boolean isRestored,
            OperatorStateBackend operatorStateBackend, KeyedStateBackend keyedStateBackend, OptionalLong checkpointIntervalMs) {
        this(jobName, operatorId, subtaskIndex, parallelism, isRestored, operatorStateBackend, keyedStateBackend, checkpointIntervalMs,
                null, null);
    }

    @Override
    public void sideOutput(String outputName, io.weir.api.Row row) {
        OperatorContext.super.sideOutput(outputName, row); // checks the name
        if (sideOutputs != null) {
            sideOutputs.accept(outputName, row);
        }
    }

    @Override
    public io.weir.api.operator.TimerService timerService() {
        if (timers == null) {
            return OperatorContext.super.timerService(); // throws, naming the operator
        }
        return timers;
    }

    @Override
    public OperatorStateStore operatorState() {
        return operatorStateBackend;
    }

    @Override
    public KeyedStateStore keyedState() {
        if (keyedStateBackend == null) {
            throw new IllegalStateException("operator '" + operatorId + "' of job " + jobName
                    + " has no keyed state: its input must be \"partitioning\": \"hash\" with \"keys\"");
        }
        return keyedStateBackend;
    }
}
