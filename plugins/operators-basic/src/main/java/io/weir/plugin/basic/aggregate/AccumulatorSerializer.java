package io.weir.plugin.basic.aggregate;

import io.weir.api.RowSerializer;
import io.weir.api.serialization.TypeSerializer;

import java.io.DataInput;
import java.io.DataOutput;
import java.io.IOException;

/**
 * The keyed-state form of an {@link Accumulator}: exactly the bytes of its accumulator row
 * ({@link AggregatePlan#toRow}) in the {@link RowSerializer} form of {@link AggregatePlan#accumulatorSchema()}, so
 * checkpoints written before accumulators were changed in place restore unchanged, and the other way round.
 * {@link #copy} is a deep copy. Stateless and thread-safe.
 */
final class AccumulatorSerializer implements TypeSerializer<Accumulator> {
    private final AggregatePlan plan;
    private final RowSerializer rows;

    AccumulatorSerializer(AggregatePlan plan) {
        this.plan = plan;
        this.rows = new RowSerializer(plan.accumulatorSchema());
    }

    @Override
    public void serialize(Accumulator value, DataOutput out) throws IOException {
        if (plan.hasExtremes()) {
            rows.serialize(plan.toRow(value), out);
        } else {
            plan.writeWords(value, out); // the same bytes, without a row, its array and a box per slot
        }
    }

    /** @throws IOException also if the row's count is null or a slot does not have its schema type */
    @Override
    public Accumulator deserialize(DataInput in) throws IOException {
        try {
            return plan.fromRow(rows.deserialize(in));
        } catch (IllegalArgumentException e) {
            throw new IOException("not an accumulator of " + plan.accumulatorSchema() + ": " + e.getMessage(), e);
        }
    }

    @Override
    public Accumulator copy(Accumulator value) {
        return value.copy();
    }
}
