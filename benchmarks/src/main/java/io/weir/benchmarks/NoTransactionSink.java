package io.weir.benchmarks;

import io.weir.api.serialization.Serializers;
import io.weir.api.serialization.TypeSerializer;
import io.weir.api.sink.TwoPhaseCommittingSink;

import java.util.Collection;

/**
 * Base of the benchmarks' own sinks, which observe rows and commit nothing: transactions are sequence numbers
 * (serialized as 8-byte longs), pre-commit, commit and abort are no-ops. Subclasses implement
 * {@link #write}. Task thread only.
 */
public abstract class NoTransactionSink implements TwoPhaseCommittingSink<Long> {
    /** Next transaction handle; task thread only. */
    private long nextTransaction;

    @Override
    public final Long beginTransaction() {
        return nextTransaction++;
    }

    @Override
    public final Long preCommit(Long transaction) {
        return transaction;
    }

    @Override
    public final void commit(Long transaction) {
    }

    @Override
    public final void abort(Long transaction) {
    }

    @Override
    public final void abortLeftovers(Collection<Long> keep) {
    }

    @Override
    public final TypeSerializer<Long> transactionSerializer() {
        return Serializers.LONG;
    }
}
