package io.weir.runtime.tasks;

import io.weir.api.FieldType;
import io.weir.api.Row;
import io.weir.api.Schema;
import io.weir.api.operator.Output;
import io.weir.api.operator.StreamOperator;
import io.weir.api.sink.TwoPhaseCommittingSink;
import io.weir.api.serialization.TypeSerializer;
import io.weir.runtime.operators.DefaultOperatorContext;
import io.weir.runtime.operators.TwoPhaseCommitSinkOperator;
import org.junit.jupiter.api.Test;

import java.io.DataInput;
import java.io.DataOutput;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link Output#retainsRows()} of the output that feeds a chained operator: what the operator (and a sink, through
 * the runtime's sink operator) declares, so that only a receiver that keeps no row lets its sender reuse rows.
 */
class ChainedOutputRetentionTest {
    private static final Schema SCHEMA = Schema.builder().field("v", FieldType.LONG).build();

    @Test
    void anOperatorThatDeclaresNothingIsFedByAnOutputThatRetainsRows() {
        StreamOperator keeps = (row, out) -> { };

        assertThat(chained(keeps).asOutput().retainsRows()).isTrue();
    }

    @Test
    void anOperatorThatKeepsNoInputRowIsFedByAnOutputThatRetainsNone() {
        StreamOperator keepsNone = new StreamOperator() {
            @Override
            public void processElement(Row row, Output out) {
            }

            @Override
            public boolean retainsInputRows() {
                return false;
            }
        };

        assertThat(chained(keepsNone).asOutput().retainsRows()).isFalse();
    }

    @Test
    void aChainedSinkRetainsRowsAsItsSinkDeclares() {
        assertThat(chained(new TwoPhaseCommitSinkOperator<>(new Sink(true))).asOutput().retainsRows()).isTrue();
        assertThat(chained(new TwoPhaseCommitSinkOperator<>(new Sink(false))).asOutput().retainsRows()).isFalse();
    }

    @Test
    void theOutputStillHandsEachRowToTheOperator() {
        List<Row> seen = new ArrayList<>();
        Output output = chained((row, out) -> seen.add(row)).asOutput();
        Row row = new Row(SCHEMA, 1L);

        output.collect(row);

        assertThat(seen).containsExactly(row);
    }

    private static ChainedOperator chained(StreamOperator operator) {
        DefaultOperatorContext context = new DefaultOperatorContext("job", "op", 0, 1, false, null, null);
        ChainedOperator op = new ChainedOperator("op", operator, context, null, 128, 0, 0);
        op.output = row -> { };
        return op;
    }

    /** A sink whose {@link #retainsRows()} is given; writes nothing. */
    private static final class Sink implements TwoPhaseCommittingSink<Long> {
        private final boolean retains;

        Sink(boolean retains) {
            this.retains = retains;
        }

        @Override
        public Long beginTransaction() {
            return 0L;
        }

        @Override
        public void write(Long transaction, Row row) {
        }

        @Override
        public boolean retainsRows() {
            return retains;
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
        public void abortLeftovers(java.util.Collection<Long> keep) {
        }

        @Override
        public TypeSerializer<Long> transactionSerializer() {
            return new TypeSerializer<>() {
                @Override
                public void serialize(Long value, DataOutput out) throws java.io.IOException {
                    out.writeLong(value);
                }

                @Override
                public Long deserialize(DataInput in) throws java.io.IOException {
                    return in.readLong();
                }
            };
        }
    }
}
