package io.weir.plugin.basic;

import io.weir.api.FieldType;
import io.weir.api.Row;
import io.weir.api.Schema;
import io.weir.api.operator.StreamOperator;
import io.weir.api.plugin.OperatorFactory;
import io.weir.api.plugin.PluginConfig;
import io.weir.api.testing.InMemoryOperatorContext;
import io.weir.api.RowSerializer;
import io.weir.plugin.basic.aggregate.Accumulator;
import io.weir.plugin.basic.aggregate.AggregatePlan;
import io.weir.plugin.basic.aggregate.KeyedAggregateFactory;
import io.weir.plugin.basic.aggregate.KeyedAggregateOperator;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.ServiceLoader;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

class KeyedAggregateTest {
    private static final Schema INPUT = Schema.builder().field("origin", FieldType.STRING)
            .field("delay", FieldType.LONG).field("ratio", FieldType.DOUBLE).field("distance", FieldType.INT).build();
    private static final PluginConfig CONFIG = config(Map.of("key", List.of("origin"), "aggregates", List.of(
            Map.of("fn", "count", "as", "n"),
            Map.of("fn", "sum", "field", "delay", "as", "total"),
            Map.of("fn", "avg", "field", "delay", "as", "mean"),
            Map.of("fn", "min", "field", "ratio", "as", "lo"),
            Map.of("fn", "max", "field", "distance", "as", "hi"),
            Map.of("fn", "sum", "field", "ratio"))));

    @Test
    void outputSchemaHasKeyFieldsThenAggregatesWithTheirTypes() {
        assertThat(new KeyedAggregateFactory().outputSchema(CONFIG, INPUT)).isEqualTo(Schema.builder()
                .field("origin", FieldType.STRING).field("n", FieldType.LONG).field("total", FieldType.LONG)
                .field("mean", FieldType.DOUBLE).field("lo", FieldType.DOUBLE).field("hi", FieldType.INT)
                .field("sum_ratio", FieldType.DOUBLE).build());
        assertThat(new KeyedAggregateFactory().requiresKeyedInput()).isTrue();
    }

    @Test
    void emitsRunningCountSumAvgMinMaxPerKeyMatchingAnIndependentComputation() throws Exception {
        List<Row> input = randomRows(2_000, 42);
        StreamOperator op = new KeyedAggregateFactory().create(CONFIG, INPUT);
        InMemoryOperatorContext context = InMemoryOperatorContext.keyed();
        op.initializeState(context);

        List<Row> out = run(op, context, input);

        assertThat(out).hasSize(input.size());
        assertRunningAggregates(input, out);
    }

    @Test
    void toAnOutputThatRetainsNoRowsItEmitsOneReusedRowHoldingEachRowsAggregates() throws Exception {
        List<Row> input = randomRows(500, 11);
        StreamOperator op = new KeyedAggregateFactory().create(CONFIG, INPUT);
        InMemoryOperatorContext context = InMemoryOperatorContext.keyed();
        op.initializeState(context);
        List<Row> emitted = new ArrayList<>();
        List<Row> copies = new ArrayList<>();
        io.weir.api.operator.Output retainsNone = new io.weir.api.operator.Output() {
            @Override
            public void collect(Row row) {
                emitted.add(row);
                // what a receiver that keeps nothing sees during the call, hash included
                copies.add(new Row(row.schema(), row.values()));
                assertThat(row.hashCode()).isEqualTo(copies.get(copies.size() - 1).hashCode());
            }

            @Override
            public boolean retainsRows() {
                return false;
            }
        };

        Schema keySchema = Schema.builder().field("origin", FieldType.STRING).build();
        for (Row row : input) {
            context.setCurrentKey(row.project(new int[] {0}, keySchema));
            op.processElement(row, retainsNone);
        }

        assertThat(emitted).hasSize(input.size());
        assertThat(emitted).allSatisfy(r -> assertThat(r).isSameAs(emitted.get(0)));
        assertRunningAggregates(input, copies);
    }

    /** Checks that {@code out.get(i)} holds the aggregates of input rows 0..i of its key (an independent computation). */
    private static void assertRunningAggregates(List<Row> input, List<Row> out) {
        Map<String, List<Row>> seen = new HashMap<>();
        for (int i = 0; i < input.size(); i++) {
            Row in = input.get(i);
            List<Row> soFar = seen.computeIfAbsent(in.getString(0), k -> new ArrayList<>());
            soFar.add(in);
            assertExpected(out.get(i), soFar);
        }
    }

    @Test
    void toAnOutputThatRetainsRowsEveryRowIsANewOneLeftUnchanged() throws Exception {
        StreamOperator op = new KeyedAggregateFactory().create(CONFIG, INPUT);
        InMemoryOperatorContext context = InMemoryOperatorContext.keyed();
        op.initializeState(context);

        List<Row> out = run(op, context, List.of(new Row(INPUT, "SFO", 5L, 0.5, 10), new Row(INPUT, "SFO", 7L, 0.25, 20)));

        assertThat(out.get(1)).isNotSameAs(out.get(0));
        assertThat(out.get(0).get(1)).as("count of the first row, after the second").isEqualTo(1L);
        assertThat(out.get(1).get(1)).isEqualTo(2L);
    }

    @Test
    void restoredStateContinuesTheAggregatesOfEachKey() throws Exception {
        List<Row> input = randomRows(600, 7);
        StreamOperator first = new KeyedAggregateFactory().create(CONFIG, INPUT);
        InMemoryOperatorContext context = InMemoryOperatorContext.keyed();
        first.initializeState(context);
        run(first, context, input.subList(0, 350));
        var checkpoint = context.snapshotKeyedState();
        run(first, context, input.subList(350, 400)); // lost with the failure, replayed below

        StreamOperator restored = new KeyedAggregateFactory().create(CONFIG, INPUT);
        InMemoryOperatorContext restoredContext = InMemoryOperatorContext.keyedRestoredFrom(checkpoint);
        restored.initializeState(restoredContext);
        List<Row> out = run(restored, restoredContext, input.subList(350, 600));

        Row last = out.get(out.size() - 1);
        List<Row> all = input.stream().filter(r -> r.getString(0).equals(last.getString(0))).toList();
        assertExpected(last, all);
    }

    @Test
    void nullValuesAreCountedButSkippedBySumAvgMinMax() throws Exception {
        StreamOperator op = new KeyedAggregateFactory().create(CONFIG, INPUT);
        InMemoryOperatorContext context = InMemoryOperatorContext.keyed();
        op.initializeState(context);

        List<Row> out = run(op, context, List.of(new Row(INPUT, "A", null, null, null), new Row(INPUT, "A", 4L, 0.5, 9)));

        assertThat(out.get(0).values()).containsExactly("A", 1L, null, null, null, null, null);
        assertThat(out.get(1).values()).containsExactly("A", 2L, 4L, 4.0, 0.5, 9, 0.5);
    }

    /** The accumulator row of CONFIG, built by hand: count, s1 (sum delay), s2 n2 (avg delay), m3 (min), m4 (max), s5. */
    private static final Schema ACCUMULATOR = Schema.builder().field("count", FieldType.LONG).field("s1", FieldType.LONG)
            .field("s2", FieldType.LONG).field("n2", FieldType.LONG).field("m3", FieldType.DOUBLE)
            .field("m4", FieldType.INT).field("s5", FieldType.DOUBLE).build();
    private static final Schema ORIGIN = Schema.builder().field("origin", FieldType.STRING).build();

    private static byte[] accumulatorRowBytes(Object... values) throws Exception {
        java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
        java.io.DataOutputStream out = new java.io.DataOutputStream(bytes);
        new RowSerializer(ACCUMULATOR).serialize(new Row(ACCUMULATOR, values), out);
        out.flush();
        return bytes.toByteArray();
    }

    @Test
    void theAccumulatorStateHasTheBinaryFormOfTheAccumulatorRowSoCheckpointsKeepTheirFormat() throws Exception {
        StreamOperator op = new KeyedAggregateFactory().create(CONFIG, INPUT);
        InMemoryOperatorContext context = InMemoryOperatorContext.keyed();
        op.initializeState(context);
        run(op, context, List.of(new Row(INPUT, "A", 4L, 0.5, 9), new Row(INPUT, "A", null, -1.5, 3)));

        byte[] stored = context.snapshotKeyedState().get(KeyedAggregateOperator.STATE_NAME).get(new Row(ORIGIN, "A"));

        assertThat(stored).isEqualTo(accumulatorRowBytes(2L, 4L, 4L, 1L, -1.5, 9, -1.0));
    }

    @Test
    void stateWrittenAsAnAccumulatorRowIsRestoredAndContinued() throws Exception {
        Map<Object, byte[]> perKey = new HashMap<>();
        perKey.put(new Row(ORIGIN, "A"), accumulatorRowBytes(2L, 4L, 4L, 1L, -1.5, 9, -1.0));
        perKey.put(new Row(ORIGIN, "B"), accumulatorRowBytes(1L, null, null, null, null, null, null));
        StreamOperator op = new KeyedAggregateFactory().create(CONFIG, INPUT);
        InMemoryOperatorContext context = InMemoryOperatorContext.keyedRestoredFrom(
                Map.of(KeyedAggregateOperator.STATE_NAME, perKey));
        op.initializeState(context);

        List<Row> out = run(op, context, List.of(new Row(INPUT, "A", 6L, 2.0, 10), new Row(INPUT, "B", 7L, null, null)));

        assertThat(out.get(0).values()).containsExactly("A", 3L, 10L, 5.0, -1.5, 10, 1.0);
        assertThat(out.get(1).values()).containsExactly("B", 2L, 7L, 7.0, null, null, null);
    }

    @Test
    void anOverflowingSumLeavesTheAccumulatorUnchanged() {
        AggregatePlan plan = AggregatePlan.from(CONFIG, INPUT);
        Accumulator acc = plan.accumulate((Accumulator) null, new Row(INPUT, "A", Long.MAX_VALUE - 1, 1.0, 5));
        Row before = plan.toRow(acc);

        assertThatThrownBy(() -> plan.accumulate(acc, new Row(INPUT, "A", 2L, 3.0, 8)))
                .isInstanceOf(ArithmeticException.class);
        assertThat(plan.toRow(acc)).isEqualTo(before);
        assertThat(plan.result(plan.accumulate(acc, new Row(INPUT, "A", 1L, null, null)), new Row(INPUT, "A", null, null, null))
                .values()).containsExactly("A", 2L, Long.MAX_VALUE, (double) Long.MAX_VALUE / 2, 1.0, 5, 1.0);
    }

    @Test
    void theAccumulatorSerializerCopiesDeeply() throws Exception {
        AggregatePlan plan = AggregatePlan.from(CONFIG, INPUT);
        Accumulator acc = plan.accumulate((Accumulator) null, new Row(INPUT, "A", 3L, 1.0, 5));
        Accumulator copy = plan.accumulatorSerializer().copy(acc);
        plan.accumulate(acc, new Row(INPUT, "A", 4L, -2.0, 8));

        assertThat(plan.toRow(copy)).isEqualTo(new Row(ACCUMULATOR, 1L, 3L, 3L, 1L, 1.0, 5, 1.0));
        assertThat(plan.toRow(acc)).isEqualTo(new Row(ACCUMULATOR, 2L, 7L, 7L, 2L, -2.0, 8, -1.0));
    }

    @Test
    void unknownKeyFieldIsAConfigErrorNamingTheField() {
        PluginConfig config = config(Map.of("key", List.of("carrier"), "aggregates", List.of(Map.of("fn", "count"))));

        assertThatThrownBy(() -> new KeyedAggregateFactory().outputSchema(config, INPUT))
                .hasMessageStartingWith("operators[1].config.key names no input field: 'carrier'");
    }

    @Test
    void misspeltFieldOfAnAggregateIsAConfigErrorListingTheFields() {
        PluginConfig config = config(Map.of("key", "origin", "aggregates",
                List.of(Map.of("fn", "avg", "field", "delay", "as", "avg_delay", "feild", "x"))));

        assertThatThrownBy(() -> new KeyedAggregateFactory().outputSchema(config, INPUT))
                .hasMessage("operators[1].config.aggregates[0].feild is not a field of an aggregate; its fields: [fn, field, as]");
    }

    @Test
    void sumOfAStringFieldIsAConfigErrorNamingTheAggregate() {
        PluginConfig config = config(Map.of("key", "delay", "aggregates",
                List.of(Map.of("fn", "count"), Map.of("fn", "sum", "field", "origin"))));

        assertThatThrownBy(() -> new KeyedAggregateFactory().outputSchema(config, INPUT))
                .hasMessage("operators[1].config.aggregates[1].field must be a long, int or double field, is string");
    }

    @Test
    void factoriesAreFoundThroughServiceLoader() {
        assertThat(ServiceLoader.load(OperatorFactory.class).stream().map(p -> p.get().type()))
                .containsExactlyInAnyOrder("filter", "project", "keyed-aggregate", "window-aggregate");
    }

    private static void assertExpected(Row actual, List<Row> rowsOfKey) {
        List<Long> delays = rowsOfKey.stream().filter(r -> r.get(1) != null).map(r -> r.getLong(1)).toList();
        List<Double> ratios = rowsOfKey.stream().filter(r -> r.get(2) != null).map(r -> r.getDouble(2)).toList();
        List<Integer> distances = rowsOfKey.stream().filter(r -> r.get(3) != null).map(r -> (Integer) r.get(3)).toList();
        assertThat(actual.get("origin")).isEqualTo(rowsOfKey.get(0).get(0));
        assertThat(actual.get("n")).isEqualTo((long) rowsOfKey.size());
        assertThat(actual.get("total")).isEqualTo(delays.isEmpty() ? null : delays.stream().mapToLong(Long::longValue).sum());
        if (delays.isEmpty()) {
            assertThat(actual.get("mean")).isNull();
        } else {
            assertThat((Double) actual.get("mean"))
                    .isCloseTo(delays.stream().mapToLong(Long::longValue).average().orElseThrow(), within(1e-9));
        }
        assertThat(actual.get("lo")).isEqualTo(ratios.stream().min(Double::compare).orElse(null));
        assertThat(actual.get("hi")).isEqualTo(distances.stream().max(Integer::compare).orElse(null));
        if (!ratios.isEmpty()) {
            assertThat((Double) actual.get("sum_ratio"))
                    .isCloseTo(ratios.stream().mapToDouble(Double::doubleValue).sum(), within(1e-6));
        }
    }

    @Test
    void version11AddsAStddevColumnPerAvgMatchingAnIndependentComputation() throws Exception {
        io.weir.plugin.basic.aggregate.AggregatePlan plan = io.weir.plugin.basic.aggregate.AggregatePlan.from(CONFIG, INPUT);
        io.weir.plugin.basic.aggregate.StddevColumns stddev = io.weir.plugin.basic.aggregate.StddevColumns.of(plan, INPUT);
        assertThat(io.weir.plugin.basic.aggregate.StddevColumns.enabled()).as("the shipped build is 1.0").isFalse();
        assertThat(stddev.outputSchema().names()).endsWith("sum_ratio", "mean_stddev");
        StreamOperator op = new io.weir.plugin.basic.aggregate.KeyedAggregateOperator(plan, RecordThrottle.from(CONFIG), stddev);
        InMemoryOperatorContext context = InMemoryOperatorContext.keyed();
        op.initializeState(context);
        List<Row> input = randomRows(500, 7);

        List<Row> out = run(op, context, input);

        Map<String, List<Long>> delays = new HashMap<>();
        for (int i = 0; i < input.size(); i++) {
            Row in = input.get(i);
            List<Long> seen = delays.computeIfAbsent(in.getString(0), k -> new ArrayList<>());
            if (in.get(1) != null) {
                seen.add((Long) in.get(1));
            }
            Object actual = out.get(i).get("mean_stddev");
            if (seen.isEmpty()) {
                assertThat(actual).isNull();
                continue;
            }
            double mean = seen.stream().mapToLong(Long::longValue).average().orElseThrow();
            double variance = seen.stream().mapToDouble(d -> (d - mean) * (d - mean)).sum() / seen.size();
            assertThat((Double) actual).as("row %d", i).isCloseTo(Math.sqrt(variance), within(1e-9));
        }
    }

    @Test
    void readsOnlyTheKeyAndTheAggregatedFieldsAndGivesTheSameResultsWhenTheOthersAreNotDecoded() throws Exception {
        PluginConfig countAndSum = config(Map.of("key", List.of("origin"), "aggregates", List.of(
                Map.of("fn", "count", "as", "n"), Map.of("fn", "sum", "field", "delay", "as", "total"))));
        StreamOperator op = new KeyedAggregateFactory().create(countAndSum, INPUT);
        InMemoryOperatorContext context = InMemoryOperatorContext.keyed();
        op.initializeState(context);
        List<Row> full = randomRows(300, 11);
        List<Row> keyAndDelayOnly = new ArrayList<>();
        for (Row r : full) {
            keyAndDelayOnly.add(new Row(INPUT, r.get(0), r.get(1), null, null));
        }

        assertThat(op.inputFieldsRead()).containsExactlyInAnyOrder(0, 1);
        List<Row> fromFull = run(op, context, full);
        StreamOperator narrow = new KeyedAggregateFactory().create(countAndSum, INPUT);
        InMemoryOperatorContext narrowContext = InMemoryOperatorContext.keyed();
        narrow.initializeState(narrowContext);
        assertThat(run(narrow, narrowContext, keyAndDelayOnly)).isEqualTo(fromFull);
        StreamOperator all = new KeyedAggregateFactory().create(CONFIG, INPUT);
        assertThat(java.util.Arrays.stream(all.inputFieldsRead()).distinct().sorted().toArray()).containsExactly(0, 1, 2, 3);
    }

    private static List<Row> run(StreamOperator op, InMemoryOperatorContext context, List<Row> input) throws Exception {
        List<Row> out = new ArrayList<>();
        for (Row row : input) {
            context.setCurrentKey(row.project(new int[] {0}, Schema.builder().field("origin", FieldType.STRING).build()));
            op.processElement(row, out::add);
        }
        return out;
    }

    private static List<Row> randomRows(int n, long seed) {
        Random random = new Random(seed);
        String[] origins = {"DTW", "LAS", "SFO", "OAK", "HNL", "JFK", "ORD"};
        List<Row> rows = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            rows.add(new Row(INPUT, origins[random.nextInt(origins.length)],
                    random.nextInt(10) == 0 ? null : (long) random.nextInt(400) - 60,
                    random.nextInt(10) == 0 ? null : random.nextDouble() * 10 - 5,
                    random.nextInt(10) == 0 ? null : random.nextInt(3000)));
        }
        return rows;
    }

    private static PluginConfig config(Map<String, Object> values) {
        return new PluginConfig("operators[1].config", new LinkedHashMap<>(values), Path.of("."));
    }
}
