package io.weir.plugin.kafkasink;

import io.weir.api.operator.OperatorContext;
import io.weir.api.state.KeyedStateStore;
import io.weir.api.state.OperatorStateStore;

import java.util.OptionalLong;

/** A test context that reports periodic checkpoints ({@link #checkpointIntervalMs()}) and delegates the rest. */
record Checkpointing(OperatorContext delegate, long intervalMs) implements OperatorContext {
    /** @return {@code context} as if {@code execution.checkpointing.interval} were 100 ms */
    static OperatorContext every100ms(OperatorContext context) {
        return new Checkpointing(context, 100);
    }

    @Override
    public String jobName() {
        return delegate.jobName();
    }

    @Override
    public String operatorId() {
        return delegate.operatorId();
    }

    @Override
    public int subtaskIndex() {
        return delegate.subtaskIndex();
    }

    @Override
    public int parallelism() {
        return delegate.parallelism();
    }

    @Override
    public boolean isRestored() {
        return delegate.isRestored();
    }

    @Override
    public OperatorStateStore operatorState() {
        return delegate.operatorState();
    }

    @Override
    public KeyedStateStore keyedState() {
        return delegate.keyedState();
    }

    @Override
    public OptionalLong checkpointIntervalMs() {
        return OptionalLong.of(intervalMs);
    }
}
