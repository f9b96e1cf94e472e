package io.weir.runtime.operators;

import io.weir.api.Row;
import io.weir.api.operator.OperatorContext;
import io.weir.api.operator.Output;
import io.weir.api.operator.StreamOperator;
import io.weir.api.serialization.Serializers;
import io.weir.api.serialization.TypeSerializer;
import io.weir.api.sink.TwoPhaseCommittingSink;
import io.weir.api.state.ListState;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.DataInput;
import java.io.DataOutput;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Runs a {@link TwoPhaseCommittingSink} as an operator (PROTOCOL.md §8):
 * <ul>
 * <li>{@code prepareSnapshotPreBarrier(n)}: pre-commits the open transaction, files it under
 *     checkpoint n, opens the next one (phase 1);</li>
 * <li>{@code snapshotState(n)}: records every pre-committed, not yet committed transaction with its
 *     checkpoint id in operator state;</li>
 * <li>{@code notifyCheckpointComplete(n)}: commits every transaction filed under a checkpoint ≤ n
 *     (phase 2), in checkpoint order;</li>
 * <li>after a restore: commits again every recorded transaction it was assigned (commit is
 *     idempotent), and removes leftovers of transactions opened after the checkpoint once the first
 *     checkpoint after the restore completes.</li>
 * </ul>
 * On a restore with another parallelism the recorded transactions (operator list state) are dealt
 * round-robin over the new subtasks, so each is committed by exactly one of them, and not necessarily
 * by the subtask that opened it. Leftovers are therefore removed only at the first completed
 * checkpoint after the restore: every subtask acknowledged it, so every subtask has committed what it
 * was assigned, and no removed leftover can be a recorded transaction another subtask still has to
 * commit ({@link TwoPhaseCommittingSink#abortLeftovers}).
 * Task thread only.
 *
 * @param <T> transaction handle type
 */
public final class TwoPhaseCommitSinkOperator<T> implements StreamOperator {
    private static final Logger LOG = LoggerFactory.getLogger(TwoPhaseCommitSinkOperator.class);

    private final TwoPhaseCommittingSink<T> sink;
    /** Checkpoint id → transaction pre-committed for it, not yet committed. Task thread only. */
    private final TreeMap<Long, T> pendingCommit = new TreeMap<>();
    /** Task thread only. */
    private ListState<PendingTransaction<T>> state;
    /** Task thread only. The open transaction. */
    private T current;
    /** Task thread only. */
    private String name = "sink";
    /** Set after a restore until the first completed checkpoint, which removes the leftovers. Task thread only. */
    private boolean leftoversPending;

    /** @param sink the plugin's sink for this subtask */
    public TwoPhaseCommitSinkOperator(TwoPhaseCommittingSink<T> sink) {
        this.sink = sink;
    }

    /** A pre-committed transaction and the checkpoint it belongs to. */
    record PendingTransaction<T>(long checkpointId, T transaction) {
    }

    @Override
    public void initializeState(OperatorContext context) throws Exception {
        name = context.jobName() + "/" + context.operatorId() + "#" + context.subtaskIndex();
        sink.open(context);
        state = context.operatorState().getListState("pending-transactions", new PendingSerializer<>(sink.transactionSerializer()));
        List<T> recovered = new ArrayList<>();
        for (PendingTransaction<T> p : state.get()) {
            sink.commit(p.transaction());
            recovered.add(p.transaction());
        }
        if (context.isRestored()) {
            LOG.info("Sink {} re-committed {} recorded transaction(s) after restore; leftovers are removed at the first "
                    + "completed checkpoint", name, recovered.size());
            leftoversPending = true;
        } else {
            sink.abortLeftovers(List.of());
        }
        state.clear();
        current = sink.beginTransaction();
    }

    @Override
    public void processElement(Row row, Output out) throws Exception {
        sink.write(current, row);
    }

    /** @return the sink's {@link TwoPhaseCommittingSink#retainsRows()}: this operator keeps no row itself */
    @Override
    public boolean retainsInputRows() {
        return sink.retainsRows();
    }

    @Override
    public void prepareSnapshotPreBarrier(long checkpointId, Output out) throws Exception {
        pendingCommit.put(checkpointId, sink.preCommit(current, checkpointId));
        current = sink.beginTransaction();
    }

    @Override
    public void snapshotState(long checkpointId) {
        List<PendingTransaction<T>> list = new ArrayList<>(pendingCommit.size());
        for (Map.Entry<Long, T> e : pendingCommit.entrySet()) {
            list.add(new PendingTransaction<>(e.getKey(), e.getValue()));
        }
        state.update(list);
    }

    @Override
    public void notifyCheckpointComplete(long checkpointId) throws Exception {
        Iterator<Map.Entry<Long, T>> it = pendingCommit.headMap(checkpointId, true).entrySet().iterator();
        while (it.hasNext()) {
            Map.Entry<Long, T> e = it.next();
            sink.commit(e.getValue());
            it.remove();
            LOG.debug("Sink {} committed the transaction of checkpoint {}", name, e.getKey());
        }
        if (leftoversPending) {
            // every subtask acknowledged this checkpoint, so all transactions of the restored one are committed
            leftoversPending = false;
            sink.abortLeftovers(List.copyOf(pendingCommit.values()));
        }
    }

    @Override
    public void notifyCheckpointAborted(long checkpointId) {
        // The transaction stays pending: the next completed checkpoint (which subsumes this one)
        // commits it, since its data is also covered by that checkpoint.
    }

    @Override
    public void finish(Output out) {
        // Nothing to flush: the final checkpoint pre-commits the open transaction at its barrier.
    }

    @Override
    public void close() throws Exception {
        try {
            if (current != null) {
                sink.abort(current);
            }
        } finally {
            sink.close();
        }
    }

    /** Serializer of (checkpoint id, transaction) pairs. */
    private record PendingSerializer<T>(TypeSerializer<T> txn) implements TypeSerializer<PendingTransaction<T>> {
        @Override
        public void serialize(PendingTransaction<T> value, DataOutput out) throws IOException {
            Serializers.LONG.serialize(value.checkpointId(), out);
            txn.serialize(value.transaction(), out);
        }

        @Override
        public PendingTransaction<T> deserialize(DataInput in) throws IOException {
            return new PendingTransaction<>(in.readLong(), txn.deserialize(in));
        }
    }
}
