package io.weir.benchmarks;

import io.weir.api.Row;
import io.weir.api.Schema;
import io.weir.api.plugin.PluginConfig;
import io.weir.api.plugin.SinkFactory;
import io.weir.api.serialization.Serializers;
import io.weir.api.serialization.TypeSerializer;
import io.weir.api.sink.TwoPhaseCommittingSink;

import java.util.Collection;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The benchmark-only {@code count-sink}: drops rows after adding one per row to a counter owned by
 * the harness, which samples it to compute records/s. Rows are counted when written, not when
 * committed (throughput of the pipeline, not of commits). Registered by hand into the engine's
 * plugin registry, never through ServiceLoader or OSGi. Thread-safe (the counter is atomic).
 */
public final class CountingSinkFactory implements SinkFactory {
    /** The type name in job files. */
    public static final String TYPE = "count-sink";

    private final AtomicLong rows;

    /** @param rows incremented once per row written by any subtask of any sink this factory creates */
    public CountingSinkFactory(AtomicLong rows) {
        this.rows = rows;
    }

    @Override
    public String type() {
        return TYPE;
    }

    /** Accepts any schema and ignores the config. */
    @Override
    public void validate(PluginConfig config, Schema input) {
    }

    /** @return a sink whose transactions are sequence numbers (handles serialized as 8-byte longs) */
    @Override
    public TwoPhaseCommittingSink<Long> create(PluginConfig config, Schema input) {
        return new CountingSink(rows);
    }

    /** Counts rows; its transactions are no-ops. Task thread only, except the shared atomic counter. */
    static final class CountingSink implements TwoPhaseCommittingSink<Long> {
        private final AtomicLong rows;
        /** Next transaction handle; task thread only. */
        private long nextTransaction;

        CountingSink(AtomicLong rows) {
            this.rows = rows;
        }

        @Override
        public Long beginTransaction() {
            return nextTransaction++;
        }

        @Override
        public void write(Long transaction, Row row) {
            rows.incrementAndGet();
        }

        @Override
        public Long preCommit(Long transaction) {
            return transaction;
        }

        @Override
        public void commit(Long transaction) {
        }

        @Override
        public void abort(Long transaction) {
        }

        @Override
        public void abortLeftovers(Collection<Long> keep) {
        }

        @Override
        public TypeSerializer<Long> transactionSerializer() {
            return Serializers.LONG;
        }
    }
}
