package io.weir.benchmarks.upgrade;

import io.weir.api.Row;
import io.weir.api.Schema;
import io.weir.api.plugin.PluginConfig;
import io.weir.api.plugin.SinkFactory;
import io.weir.api.serialization.Serializers;
import io.weir.api.serialization.TypeSerializer;
import io.weir.api.sink.TwoPhaseCommittingSink;

import java.util.Arrays;
import java.util.BitSet;
import java.util.Collection;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The benchmark-only {@code seq-check} sink: two-phase commit whose transactions hold the {@code seq} field of their
 * rows in memory; a commit marks each in one shared bit set (a second commit of a transaction is a no-op, a sequence
 * number committed twice counts as a duplicate). One factory serves every run of the job in this JVM, so the
 * transactions one run pre-committed are committed by the next after a restore. Thread-safe: the pending and
 * committed tables are concurrent or guarded by {@code this}.
 */
public final class SequenceSinkFactory implements SinkFactory {
    /** The type name in job files. */
    public static final String TYPE = "seq-check";

    /** Transaction ids, unique across every subtask and run. */
    private final AtomicLong transactions = new AtomicLong();
    private final AtomicLong written = new AtomicLong();
    private final Map<Long, long[]> pending = new ConcurrentHashMap<>();
    /** Guarded by {@code this}. */
    private final BitSet committed = new BitSet();
    /** Guarded by {@code this}. */
    private long duplicated;

    @Override
    public String type() {
        return TYPE;
    }

    /** @throws IllegalArgumentException if the input has no {@code seq} field */
    @Override
    public void validate(PluginConfig config, Schema input) {
        input.require("seq");
    }

    @Override
    public TwoPhaseCommittingSink<Long> create(PluginConfig config, Schema input) {
        int seq = input.require("seq");
        return new TwoPhaseCommittingSink<>() {
            /** The open transaction's sequence numbers; task thread only. */
            private long[] buffer = new long[1024];
            private int size;

            @Override
            public Long beginTransaction() {
                size = 0;
                return transactions.incrementAndGet();
            }

            @Override
            public void write(Long transaction, Row row) {
                if (size == buffer.length) {
                    buffer = Arrays.copyOf(buffer, size * 2);
                }
                buffer[size++] = (Long) row.get(seq);
                written.incrementAndGet();
            }

            @Override
            public Long preCommit(Long transaction) {
                pending.put(transaction, Arrays.copyOf(buffer, size));
                return transaction;
            }

            @Override
            public void commit(Long transaction) {
                long[] seqs = pending.remove(transaction);
                if (seqs != null) {
                    markCommitted(seqs);
                }
            }

            @Override
            public void abort(Long transaction) {
                pending.remove(transaction);
            }

            @Override
            public void abortLeftovers(Collection<Long> keep) {
            }

            @Override
            public TypeSerializer<Long> transactionSerializer() {
                return Serializers.LONG;
            }
        };
    }

    private synchronized void markCommitted(long[] seqs) {
        for (long s : seqs) {
            int i = Math.toIntExact(s);
            if (committed.get(i)) {
                duplicated++;
            } else {
                committed.set(i);
            }
        }
    }

    /** @return rows written by every sink of this factory (committed or not) */
    long written() {
        return written.get();
    }

    /**
     * What was committed.
     *
     * @param distinct sequence numbers committed
     * @param lost numbers below the highest committed one that were never committed
     * @param duplicated commits of a number already committed
     */
    record Check(long distinct, long lost, long duplicated) {
    }

    /** @return the check of everything committed so far */
    synchronized Check check() {
        long distinct = committed.cardinality();
        long highest = committed.length();
        return new Check(distinct, highest - distinct, duplicated);
    }
}
