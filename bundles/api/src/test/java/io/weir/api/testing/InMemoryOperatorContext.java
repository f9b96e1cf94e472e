package io.weir.api.testing;

import io.weir.api.operator.OperatorContext;
import io.weir.api.state.KeyedStateStore;
import io.weir.api.state.OperatorStateStore;
import java.util.Map;
import java.util.Objects;

/**
 * Test double of {@link OperatorContext} for plugin tests: job {@value #JOB_NAME}, operator
 * {@value #OPERATOR_ID}, a given subtask index and parallelism, an {@link InMemoryOperatorStateStore}
 * and, for keyed operators, an {@link InMemoryKeyedStateStore}. A checkpoint is taken with
 * {@link #snapshotOperatorState()} / {@link #snapshotKeyedState()} and restored by building a new
 * context from it. Published in the {@code weir-api} test-jar (package {@code io.weir.api.testing}).
 *
 * <p>Not thread-safe: one test thread, as the task thread in the runtime.
 */
public final class InMemoryOperatorContext implements OperatorContext {
    /** The {@link #jobName()} of every context. */
    public static final String JOB_NAME = "test-job";
    /** The {@link #operatorId()} of every context. */
    public static final String OPERATOR_ID = "test-op";

    private final int subtaskIndex;
    private final int parallelism;
    private final InMemoryOperatorStateStore operatorState;
    /** Null if the operator is not keyed. */
    private final InMemoryKeyedStateStore keyedState;

    /**
     * @param subtaskIndex 0-based, below {@code parallelism}
     * @param parallelism at least 1
     * @param operatorState the subtask's operator state
     * @param keyedState the subtask's keyed state, null for an operator whose input is not keyed
     * @throws IllegalArgumentException if the subtask index or parallelism is out of range
     * @throws NullPointerException if {@code operatorState} is null
     */
    public InMemoryOperatorContext(int subtaskIndex, int parallelism, InMemoryOperatorStateStore operatorState,
            InMemoryKeyedStateStore keyedState) {
        if (parallelism < 1 || subtaskIndex < 0 || subtaskIndex >= parallelism) {
            throw new IllegalArgumentException("subtask " + subtaskIndex + " of parallelism " + parallelism
                    + " is out of range");
        }
        this.subtaskIndex = subtaskIndex;
        this.parallelism = parallelism;
        this.operatorState = Objects.requireNonNull(operatorState, "operatorState");
        this.keyedState = keyedState;
    }

    /** @return a not-keyed context with empty operator state (a fresh start) */
    public static InMemoryOperatorContext fresh(int subtaskIndex, int parallelism) {
        return new InMemoryOperatorContext(subtaskIndex, parallelism, InMemoryOperatorStateStore.empty(), null);
    }

    /**
     * @param operatorSnapshot what {@link #snapshotOperatorState()} returned
     * @return a not-keyed context whose operator state is restored from the snapshot
     */
    public static InMemoryOperatorContext restored(int subtaskIndex, int parallelism,
            Map<String, byte[]> operatorSnapshot) {
        return new InMemoryOperatorContext(subtaskIndex, parallelism,
                InMemoryOperatorStateStore.restoredFrom(operatorSnapshot), null);
    }

    /** @return subtask 0 of 1 with empty keyed and operator state (a fresh start) */
    public static InMemoryOperatorContext keyed() {
        return new InMemoryOperatorContext(0, 1, InMemoryOperatorStateStore.empty(), InMemoryKeyedStateStore.empty());
    }

    /**
     * @param keyedSnapshot what {@link #snapshotKeyedState()} returned
     * @return subtask 0 of 1 whose keyed state is restored from the snapshot (empty operator state)
     */
    public static InMemoryOperatorContext keyedRestoredFrom(Map<String, Map<Object, byte[]>> keyedSnapshot) {
        return new InMemoryOperatorContext(0, 1, InMemoryOperatorStateStore.empty(),
                InMemoryKeyedStateStore.restoredFrom(keyedSnapshot));
    }

    /** @return every operator list state in binary form, by state name */
    public Map<String, byte[]> snapshotOperatorState() {
        return operatorState.snapshot();
    }

    /**
     * @return a copy of all keyed state: state name → key → serialized value
     * @throws IllegalStateException if the context is not keyed
     */
    public Map<String, Map<Object, byte[]>> snapshotKeyedState() {
        return requireKeyed().snapshot();
    }

    /**
     * Scopes keyed state to {@code key} for the next record, as the runtime does before each
     * {@code processElement}.
     *
     * @throws IllegalStateException if the context is not keyed
     */
    public void setCurrentKey(Object key) {
        requireKeyed().setCurrentKey(key);
    }

    /** @return {@value #JOB_NAME} */
    @Override
    public String jobName() {
        return JOB_NAME;
    }

    /** @return {@value #OPERATOR_ID} */
    @Override
    public String operatorId() {
        return OPERATOR_ID;
    }

    @Override
    public int subtaskIndex() {
        return subtaskIndex;
    }

    @Override
    public int parallelism() {
        return parallelism;
    }

    /** @return whether the operator or the keyed state was restored from a snapshot */
    @Override
    public boolean isRestored() {
        return operatorState.isRestored() || (keyedState != null && keyedState.isRestored());
    }

    @Override
    public OperatorStateStore operatorState() {
        return operatorState;
    }

    /** @throws IllegalStateException if the context is not keyed */
    @Override
    public KeyedStateStore keyedState() {
        return requireKeyed();
    }

    private InMemoryKeyedStateStore requireKeyed() {
        if (keyedState == null) {
            throw new IllegalStateException("operator " + OPERATOR_ID + " subtask " + subtaskIndex
                    + ": not keyed (this test context has no keyed state)");
        }
        return keyedState;
    }
}
