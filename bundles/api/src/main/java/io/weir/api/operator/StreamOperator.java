package io.weir.api.operator;

import io.weir.api.Row;

/**
 * A record-at-a-time operator: one instance per subtask, driven by the task's mailbox thread.
 *
 * <p>Lifecycle, all on the task thread: {@link #initializeState} → {@link #open} →
 * {@link #processElement}* (interleaved with the checkpoint calls) → {@link #finish} (end of
 * input only) → {@link #close} (always, also after a failure). Checkpoint calls per checkpoint
 * (PROTOCOL.md §3): {@link #prepareSnapshotPreBarrier} before the barrier goes downstream, then
 * {@link #snapshotState}; later {@link #notifyCheckpointComplete} or {@link #notifyCheckpointAborted}.
 * Keyed state is snapshotted by the state backend; {@code snapshotState} is for anything the
 * operator keeps outside state stores.
 */
public interface StreamOperator extends CheckpointListener {
    /**
     * Registers state; after a restore the state holds the checkpointed values.
     *
     * @throws Exception fails the task
     */
    default void initializeState(OperatorContext context) throws Exception {
    }

    /** Called once after {@link #initializeState}, before the first record. */
    default void open() throws Exception {
    }

    /**
     * Processes one input row. When the input is keyed, keyed state is scoped to this row's key.
     *
     * @throws Exception fails the task, which triggers a restart from the last checkpoint
     */
    void processElement(Row row, Output out) throws Exception;

    /**
     * The input fields this operator reads, so that the engine need not decode the others. Asked once, after
     * {@link #open}, and only of the first operator of a task that reads from the network; rows handed to
     * {@link #processElement} may then hold {@code null} in every field not listed (the key fields of a keyed input
     * are always decoded). An operator that returns positions must not read other fields nor emit, print or store
     * the input row itself.
     *
     * @return positions in the input schema, or {@code null} (the default) when the operator may read any field
     */
    default int[] inputFieldsRead() {
        return null;
    }

    /**
     * Whether this operator may reference an input row after {@link #processElement} returns (keeps it in a
     * field or state, or emits it to an output that does): the chained output feeding this operator answers
     * {@link Output#retainsRows()} with it. Override to return false only if no input row, nor its values array,
     * is referenced after {@code processElement} returns; an operator that passes its input row on (a filter) keeps
     * the default, as the outputs it emits to are only known per call.
     *
     * @return true (the default), or false when the operator is done with each input row when processing returns
     */
    default boolean retainsInputRows() {
        return true;
    }

    /**
     * A timer this operator registered through {@link OperatorContext#timerService()} fired. Keyed state is
     * scoped to {@code key}; the timer is already removed (registering it again schedules a new one).
     * Event-time timers fire before {@link #processWatermark} for the watermark that passed them.
     *
     * @param timestamp the timer's timestamp, ms
     * @param key the key fields of the timer's key
     * @param domain which clock fired it
     * @param out where to emit rows
     * @throws Exception fails the task, which triggers a restart from the last checkpoint
     * @throws UnsupportedOperationException (default) the operator registered a timer but does not handle them
     */
    default void onTimer(long timestamp, Row key, TimeDomain domain, Output out) throws Exception {
        throw new UnsupportedOperationException(getClass().getName() + " registered a " + domain + " timer but does not override onTimer");
    }

    /**
     * The operator's watermark advanced to {@code watermark} (ms; event time {@code <= watermark} is complete:
     * rows with smaller timestamps that still arrive are late). Called after the event-time timers up to it
     * fired and before the watermark goes downstream. Default: nothing.
     */
    default void processWatermark(long watermark, Output out) throws Exception {
    }

    /** Last chance to emit buffered rows before barrier {@code checkpointId} goes downstream. */
    default void prepareSnapshotPreBarrier(long checkpointId, Output out) throws Exception {
    }

    /** Writes anything not yet in state stores into them; the synchronous part of a snapshot. */
    default void snapshotState(long checkpointId) throws Exception {
    }

    /** All input has ended: emit what is still buffered. Not called after a failure. */
    default void finish(Output out) throws Exception {
    }

    /** Releases resources. Called after {@link #finish} or after a failure; must not throw for cleanup. */
    default void close() throws Exception {
    }
}
