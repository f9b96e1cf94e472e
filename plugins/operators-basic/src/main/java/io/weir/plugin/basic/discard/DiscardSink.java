package io.weir.plugin.basic.discard;

import io.weir.api.Row;
import io.weir.api.serialization.TypeSerializer;
import io.weir.api.sink.TwoPhaseCommittingSink;

import java.util.Collection;

/**
 * A sink that drops every row: each transaction is a no-op {@link DiscardTransaction}, so commit,
 * abort and restore have nothing to do (PROTOCOL.md §8 trivially satisfied). Used by benchmarks to
 * measure the engine without sink I/O. Task thread only (see {@link TwoPhaseCommittingSink}).
 */
public final class DiscardSink implements TwoPhaseCommittingSink<DiscardTransaction> {
    /** Sequence of the next transaction; task thread only. */
    private long nextSequence;

    /** Creates a sink for one subtask. */
    public DiscardSink() {
    }

    /** @return a new handle with the next sequence number of this subtask (0, 1, 2, ...) */
    @Override
    public DiscardTransaction beginTransaction() {
        return new DiscardTransaction(nextSequence++);
    }

    /** Drops {@code row}. */
    @Override
    public void write(DiscardTransaction transaction, Row row) {
    }

    /** @return false: rows are dropped */
    @Override
    public boolean retainsRows() {
        return false;
    }

    /** Nothing to make durable. */
    @Override
    public DiscardTransaction preCommit(DiscardTransaction transaction) {
        return transaction;
    }

    /** Nothing to make visible; trivially idempotent. */
    @Override
    public void commit(DiscardTransaction transaction) {
    }

    /** Nothing to drop. */
    @Override
    public void abort(DiscardTransaction transaction) {
    }

    /** Nothing was left behind. */
    @Override
    public void abortLeftovers(Collection<DiscardTransaction> keep) {
    }

    /** @return {@link DiscardTransaction#SERIALIZER} */
    @Override
    public TypeSerializer<DiscardTransaction> transactionSerializer() {
        return DiscardTransaction.SERIALIZER;
    }
}
