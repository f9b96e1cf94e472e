package io.weir.plugin.basic.aggregate;

import io.weir.api.FieldType;
import io.weir.api.Row;
import io.weir.api.RowSerializer;
import io.weir.api.Schema;
import io.weir.api.serialization.TypeSerializer;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link AccumulatorSerializer} writes exactly the {@link RowSerializer} bytes of the accumulator row
 * ({@link AggregatePlan#toRow}), which checkpoints hold: with and without min/max slots, with unset slots in every
 * bitmap position, and with doubles whose bits a row's {@code Double} would change (NaN).
 */
class AccumulatorSerializerTest {
    private static final Schema INPUT = Schema.builder().field("k", FieldType.LONG).field("n", FieldType.LONG)
            .field("x", FieldType.DOUBLE).field("i", FieldType.INT).build();

    private static AggregatePlan plan(AggregateSpec... specs) {
        return new AggregatePlan(List.of("k"), List.of(specs), INPUT);
    }

    private static byte[] bytes(TypeSerializer<Accumulator> serializer, Accumulator acc) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        serializer.serialize(acc, new DataOutputStream(out));
        return out.toByteArray();
    }

    private static byte[] rowBytes(AggregatePlan plan, Accumulator acc) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        new RowSerializer(plan.accumulatorSchema()).serialize(plan.toRow(acc), new DataOutputStream(out));
        return out.toByteArray();
    }

    @Test
    void accumulatorsWithoutMinOrMaxSerializeToTheBytesOfTheirRow() throws IOException {
        // ten slots after the count: the null bitmap has two bytes
        AggregatePlan plan = plan(new AggregateSpec(AggregateFunction.COUNT, null, "c"),
                new AggregateSpec(AggregateFunction.SUM, "n", "s1"), new AggregateSpec(AggregateFunction.SUM, "x", "s2"),
                new AggregateSpec(AggregateFunction.AVG, "x", "a1"), new AggregateSpec(AggregateFunction.AVG, "i", "a2"),
                new AggregateSpec(AggregateFunction.SUM, "i", "s3"), new AggregateSpec(AggregateFunction.AVG, "n", "a3"),
                new AggregateSpec(AggregateFunction.SUM, "x", "s4"));
        TypeSerializer<Accumulator> serializer = plan.accumulatorSerializer();
        assertThat(plan.hasExtremes()).isFalse();
        assertThat(plan.accumulatorSchema().size()).isGreaterThan(8);

        Accumulator acc = plan.accumulate((Accumulator) null, new Row(INPUT, 1L, null, null, null));
        assertThat(bytes(serializer, acc)).as("every slot unset").isEqualTo(rowBytes(plan, acc));
        acc = plan.accumulate(acc, new Row(INPUT, 1L, 5L, null, 3));
        assertThat(bytes(serializer, acc)).as("some slots set").isEqualTo(rowBytes(plan, acc));
        acc = plan.accumulate(acc, new Row(INPUT, 1L, -7L, Double.NaN, 4));
        assertThat(bytes(serializer, acc)).as("every slot set, NaN sums").isEqualTo(rowBytes(plan, acc));

        Accumulator read = serializer.deserialize(new DataInputStream(new ByteArrayInputStream(bytes(serializer, acc))));
        assertThat(plan.toRow(read)).isEqualTo(plan.toRow(acc));
    }

    @Test
    void aCountOnlyAccumulatorIsItsBitmapByteAndTheCount() throws IOException {
        AggregatePlan plan = plan(new AggregateSpec(AggregateFunction.COUNT, null, "c"));
        Accumulator acc = plan.accumulate((Accumulator) null, new Row(INPUT, 1L, 2L, 3.0, 4));
        for (int i = 1; i < 3; i++) {
            acc = plan.accumulate(acc, new Row(INPUT, 1L, 2L, 3.0, 4));
        }

        assertThat(bytes(plan.accumulatorSerializer(), acc)).containsExactly(0, 0, 0, 0, 0, 0, 0, 0, 3)
                .isEqualTo(rowBytes(plan, acc));
    }

    @Test
    void accumulatorsWithMinOrMaxStillSerializeTheirRow() throws IOException {
        AggregatePlan plan = plan(new AggregateSpec(AggregateFunction.MIN, "n", "lo"),
                new AggregateSpec(AggregateFunction.SUM, "x", "s"));
        Accumulator acc = plan.accumulate((Accumulator) null, new Row(INPUT, 1L, 9L, 1.5, 0));
        acc = plan.accumulate(acc, new Row(INPUT, 1L, 4L, null, 0));

        assertThat(plan.hasExtremes()).isTrue();
        assertThat(bytes(plan.accumulatorSerializer(), acc)).isEqualTo(rowBytes(plan, acc));
    }
}
