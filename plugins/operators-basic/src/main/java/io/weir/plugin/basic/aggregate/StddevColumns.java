package io.weir.plugin.basic.aggregate;

import io.weir.api.Field;
import io.weir.api.FieldType;
import io.weir.api.Row;
import io.weir.api.Schema;

import java.util.ArrayList;
import java.util.List;

/**
 * Version 1.1 of {@code keyed-aggregate}: every {@code avg} aggregate gets a companion output field
 * {@code <as>_stddev} (DOUBLE, population standard deviation of the same non-null values).
 *
 * <p>Enabled in a build whose jar holds the resource {@value #MARKER} next to this class (the example bundle
 * {@code examples/plugin-upgrade/operators-basic-1.1}, Bundle-Version 1.1.0, built from the same sources); the
 * shipped 1.0 bundle lacks it and behaves as before.
 *
 * <p>State schema 2: the running moments live in a keyed value state of their own, {@value #STATE_NAME}
 * (count, mean, sum of squared deviations per avg aggregate, Welford's method), so the 1.0 accumulator state
 * restores unchanged. Migration from schema 1: a key restored from a 1.0 savepoint has no moments yet, so its
 * stddev covers the rows it received since the upgrade (its avg and count still cover all rows).
 *
 * <p>Immutable; the moment rows it returns are new objects.
 */
public final class StddevColumns {
    /** The resource whose presence enables 1.1's behaviour. */
    public static final String MARKER = "stddev-columns.enabled";
    /** Name of the keyed value state holding the moments. */
    public static final String STATE_NAME = "stddev-moments";

    private final int[] positions;
    private final List<String> names;
    private final Schema moments;
    private final Schema output;

    private StddevColumns(AggregatePlan plan, Schema input) {
        List<Integer> pos = new ArrayList<>();
        List<String> out = new ArrayList<>();
        Schema.Builder m = Schema.builder();
        for (AggregateSpec spec : plan.specs()) {
            if (spec.function() == AggregateFunction.AVG) {
                int i = pos.size();
                pos.add(input.require(spec.field()));
                out.add(spec.as() + "_stddev");
                m.field("n" + i, FieldType.LONG).field("mean" + i, FieldType.DOUBLE).field("m2" + i, FieldType.DOUBLE);
            }
        }
        this.positions = pos.stream().mapToInt(Integer::intValue).toArray();
        this.names = List.copyOf(out);
        this.moments = m.build();
        List<Field> fields = new ArrayList<>(plan.outputSchema().fields());
        for (String n : names) {
            fields.add(new Field(n, FieldType.DOUBLE));
        }
        this.output = new Schema(fields);
    }

    /** @return whether this build of the plugin is 1.1 (the marker resource is in its jar) */
    public static boolean enabled() {
        return StddevColumns.class.getResource(MARKER) != null;
    }

    /** @return the columns for {@code plan}, or null if the plan has no avg aggregate */
    public static StddevColumns of(AggregatePlan plan, Schema input) {
        StddevColumns c = new StddevColumns(plan, input);
        return c.positions.length == 0 ? null : c;
    }

    /** @return the plan's output schema plus one {@code <as>_stddev} DOUBLE field per avg aggregate */
    public Schema outputSchema() {
        return output;
    }

    /** @return the schema of the per-key moments row kept in {@value #STATE_NAME} */
    public Schema momentsSchema() {
        return moments;
    }

    /** @return the moments after {@code in}: {@code previous} (null for none yet) updated by Welford's step */
    public Row accumulate(Row previous, Row in) {
        Object[] v = previous == null ? new Object[moments.size()] : previous.values();
        for (int i = 0; i < positions.length; i++) {
            Object x = in.get(positions[i]);
            if (x == null) {
                continue;
            }
            double value = ((Number) x).doubleValue();
            long n = v[3 * i] == null ? 0 : (Long) v[3 * i];
            double mean = v[3 * i + 1] == null ? 0 : (Double) v[3 * i + 1];
            double m2 = v[3 * i + 2] == null ? 0 : (Double) v[3 * i + 2];
            n++;
            double delta = value - mean;
            mean += delta / n;
            m2 += delta * (value - mean);
            v[3 * i] = n;
            v[3 * i + 1] = mean;
            v[3 * i + 2] = m2;
        }
        return new Row(moments, v);
    }

    /** @return {@code result} (the plan's output row) extended with each stddev; null where no value was seen */
    public Row extend(Row result, Row moment) {
        Object[] out = java.util.Arrays.copyOf(result.values(), output.size());
        int base = result.schema().size();
        for (int i = 0; i < positions.length; i++) {
            Object n = moment.get(3 * i);
            out[base + i] = n == null ? null : Math.sqrt((Double) moment.get(3 * i + 2) / (Long) n);
        }
        return new Row(output, out);
    }
}
