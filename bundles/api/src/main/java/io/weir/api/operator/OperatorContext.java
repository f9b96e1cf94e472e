package io.weir.api.operator;

import io.weir.api.state.KeyedStateStore;
import io.weir.api.state.OperatorStateStore;

/**
 * What the runtime tells an operator, source or sink subtask about itself and gives it for state.
 * Task thread only.
 */
public interface OperatorContext {
    /** @return the job name */
    String jobName();

    /** @return the operator's id in the job file */
    String operatorId();

    /** @return this subtask's index, 0-based */
    int subtaskIndex();

    /** @return the operator's parallelism (number of subtasks), at least 1 */
    int parallelism();

    /** @return whether state was restored from a checkpoint (false on a fresh start) */
    boolean isRestored();

    /** @return the non-keyed state of this subtask */
    OperatorStateStore operatorState();

    /**
     * @return the keyed state of this subtask
     * @throws IllegalStateException if the operator's input is not partitioned by key ({@code hash} edge)
     */
    KeyedStateStore keyedState();

    /**
     * @return the period of periodic checkpoints in ms ({@code execution.checkpointing.interval}), or empty
     *         when periodic checkpointing is off (a bounded job then checkpoints only once, after its last
     *         record) or the caller does not know (this default). Transactional sinks use it to refuse a job
     *         that would never commit.
     */
    default java.util.OptionalLong checkpointIntervalMs() {
        return java.util.OptionalLong.empty();
    }

    /**
     * @return the timer service of this keyed operator subtask (see {@link TimerService})
     * @throws IllegalStateException if the operator's input is not partitioned by key ({@code hash} edge):
     *         timers are keyed state
     */
    default TimerService timerService() {
        throw new IllegalStateException("operator '" + operatorId() + "' of job " + jobName()
                + " has no timers: timers are keyed state, so its input must be \"partitioning\": \"hash\" with \"keys\"");
    }

    /**
     * Emits {@code row} to the named side output {@code outputName} (e.g. {@code "late"}), which a downstream
     * operator consumes with {@code {"from": "<this operator>", "output": "<outputName>"}}. Rows sent to a side
     * output nobody consumes are dropped. Task thread only.
     *
     * @throws IllegalArgumentException if {@code outputName} is null or empty
     */
    default void sideOutput(String outputName, io.weir.api.Row row) {
        if (outputName == null || outputName.isEmpty()) {
            throw new IllegalArgumentException("side output name of operator '" + operatorId() + "' must be non-empty");
        }
    }
}
