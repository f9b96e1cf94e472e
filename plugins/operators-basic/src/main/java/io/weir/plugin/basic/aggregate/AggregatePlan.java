package io.weir.plugin.basic.aggregate;

import io.weir.api.Field;
import io.weir.api.FieldType;
import io.weir.api.Row;
import io.weir.api.Schema;
import io.weir.api.plugin.PluginConfig;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The compiled form of a {@code keyed-aggregate} config against its input schema: the output
 * schema, the accumulator schema (what is kept in keyed state per key), and how a row updates an
 * accumulator and turns it into an output row.
 *
 * <p>Output schema: the key fields (input types), then one field per aggregate: count LONG; sum LONG
 * for long/int fields and DOUBLE for double fields; avg DOUBLE; min/max the field's type.
 * Accumulator schema: {@code count} LONG (all rows), then per aggregate its slots: sum → running sum;
 * avg → running sum and non-null count; min/max → current extreme; count → none. Slots are null
 * until the first non-null value, so null inputs are skipped by sum/avg/min/max but counted by count.
 *
 * <p>Immutable and thread-safe; {@link #accumulate} returns a new accumulator row (state values must
 * not be modified after they were stored).
 */
public final class AggregatePlan {
    /** The fields an entry of {@code aggregates} may have. */
    private static final List<String> AGGREGATE_FIELDS = List.of("fn", "field", "as");

    private final Schema output;
    private final Schema accumulator;
    private final int[] keyPositions;
    /** Input positions read per row: the key fields, then each aggregate's field (COUNT reads none). */
    private final int[] fieldsRead;
    private final List<String> keyNames;
    private final Aggregator[] aggregators;
    private final List<AggregateSpec> specs;

    /**
     * @param key the key fields, in output order
     * @param specs the aggregates, in output order
     * @param input the input schema
     * @throws IllegalArgumentException if a key or aggregate field does not exist, sum/avg name a
     *         non-numeric field, min/max a bytes field, or output names collide
     */
    public AggregatePlan(List<String> key, List<AggregateSpec> specs, Schema input) {
        if (key.isEmpty()) {
            throw new IllegalArgumentException("key must name at least one field");
        }
        List<Field> out = new ArrayList<>();
        this.specs = List.copyOf(specs);
        keyNames = List.copyOf(key);
        keyPositions = new int[key.size()];
        for (int i = 0; i < key.size(); i++) {
            keyPositions[i] = input.require(key.get(i));
            out.add(input.field(keyPositions[i]));
        }
        Schema.Builder acc = Schema.builder().field("count", FieldType.LONG);
        aggregators = new Aggregator[specs.size()];
        int slot = 1;
        java.util.List<Integer> read = new java.util.ArrayList<>();
        for (int p : keyPositions) {
            read.add(p);
        }
        for (int j = 0; j < specs.size(); j++) {
            AggregateSpec spec = specs.get(j);
            if (spec.function() == AggregateFunction.COUNT) {
                aggregators[j] = new Count();
                out.add(new Field(spec.as(), FieldType.LONG));
                continue;
            }
            int position = input.require(spec.field());
            read.add(position);
            FieldType type = input.field(position).type();
            String problem = checkType(spec.function(), type);
            if (problem != null) {
                throw new IllegalArgumentException(spec.function().jobName() + " of field '" + spec.field() + "': " + problem);
            }
            boolean integral = type == FieldType.LONG || type == FieldType.INT;
            FieldType sumType = integral ? FieldType.LONG : FieldType.DOUBLE;
            switch (spec.function()) {
                case SUM -> {
                    acc.field("s" + j, sumType);
                    aggregators[j] = new Sum(slot++, position, integral);
                    out.add(new Field(spec.as(), sumType));
                }
                case AVG -> {
                    acc.field("s" + j, sumType).field("n" + j, FieldType.LONG);
                    aggregators[j] = new Avg(slot, slot + 1, position, integral);
                    slot += 2;
                    out.add(new Field(spec.as(), FieldType.DOUBLE));
                }
                case MIN, MAX -> {
                    acc.field("m" + j, type);
                    aggregators[j] = new Extreme(slot++, position, spec.function() == AggregateFunction.MAX);
                    out.add(new Field(spec.as(), type));
                }
                default -> throw new IllegalStateException("unhandled function " + spec.function());
            }
        }
        this.accumulator = acc.build();
        this.output = new Schema(out);
        this.fieldsRead = read.stream().mapToInt(Integer::intValue).toArray();
    }

    /**
     * @return the input positions {@link #accumulate} and {@link #result} read: the key fields, then each
     *         aggregate's input field (a copy; repeats possible)
     */
    public int[] fieldsRead() {
        return fieldsRead.clone();
    }

    /**
     * Reads {@code key} (a field name or list of names) and {@code aggregates} (list of
     * {@code {"fn", "field", "as"}}) from a {@code keyed-aggregate} config.
     *
     * @throws IllegalArgumentException naming the config field, e.g.
     *         {@code operators[1].config.aggregates[0].field names no input field: 'x'; ...}
     */
    public static AggregatePlan from(PluginConfig config, Schema input) {
        // every setting is read before the first can fail, so that an unknown key is reported with all settings
        Object aggregates = config.raw("aggregates");
        List<String> key = keyFields(config);
        if (key.isEmpty()) {
            throw config.error("key", "is required: a field name or a non-empty list of field names");
        }
        for (int i = 0; i < key.size(); i++) {
            if (input.indexOf(key.get(i)) < 0) {
                throw config.error("key", "names no input field: '" + key.get(i) + "'; available fields: " + input.names());
            }
        }
        if (!(aggregates instanceof List<?> list) || list.isEmpty()) {
            throw config.error("aggregates", "is required: a non-empty list of {\"fn\": ..., \"field\": ..., \"as\": ...}");
        }
        Set<String> names = new HashSet<>(key);
        List<AggregateSpec> specs = new ArrayList<>();
        for (int j = 0; j < list.size(); j++) {
            String at = "aggregates[" + j + "]";
            if (!(list.get(j) instanceof Map<?, ?> m)) {
                throw config.error(at, "must be an object, got " + list.get(j));
            }
            for (Object k : m.keySet()) {
                if (!AGGREGATE_FIELDS.contains(k)) {
                    throw config.error(at + "." + k, "is not a field of an aggregate; its fields: " + AGGREGATE_FIELDS);
                }
            }
            AggregateFunction fn;
            try {
                fn = AggregateFunction.parse(String.valueOf(m.get("fn")));
            } catch (IllegalArgumentException e) {
                throw config.error(at + ".fn", e.getMessage());
            }
            Object field = m.get("field");
            if (fn == AggregateFunction.COUNT && field != null) {
                throw config.error(at + ".field", "must be absent for count");
            }
            if (fn != AggregateFunction.COUNT) {
                if (!(field instanceof String f)) {
                    throw config.error(at + ".field", "is required for " + fn.jobName() + " (a field name)");
                }
                int position = input.indexOf(f);
                if (position < 0) {
                    throw config.error(at + ".field", "names no input field: '" + f + "'; available fields: " + input.names());
                }
                String problem = checkType(fn, input.field(position).type());
                if (problem != null) {
                    throw config.error(at + ".field", problem);
                }
            }
            Object as = m.get("as");
            if (as != null && !(as instanceof String s && !s.isEmpty())) {
                throw config.error(at + ".as", "must be a non-empty string, got " + as);
            }
            String name = as != null ? (String) as : fn == AggregateFunction.COUNT ? "count" : fn.jobName() + "_" + field;
            if (!names.add(name)) {
                throw config.error(at + ".as", "output field '" + name + "' is already a key field or another aggregate");
            }
            specs.add(new AggregateSpec(fn, (String) field, name));
        }
        return new AggregatePlan(key, specs, input);
    }

    /**
     * @return the {@code key} setting of a {@code keyed-aggregate} config as a list (a single name
     *         becomes a one-element list); empty if absent
     * @throws IllegalArgumentException naming the field if it is neither a string nor a list of strings
     */
    public static List<String> keyFields(PluginConfig config) {
        return config.raw("key") instanceof String s ? List.of(s) : config.getStringList("key", List.of());
    }

    private static String checkType(AggregateFunction fn, FieldType type) {
        return switch (fn) {
            case COUNT -> null;
            case SUM, AVG -> type == FieldType.LONG || type == FieldType.INT || type == FieldType.DOUBLE ? null
                    : "must be a long, int or double field, is " + type.name().toLowerCase();
            case MIN, MAX -> type != FieldType.BYTES ? null : "bytes fields have no order";
        };
    }

    /** @return the aggregates, in output order */
    public List<AggregateSpec> specs() {
        return specs;
    }

    /** @return the output schema: key fields, then the aggregates */
    public Schema outputSchema() {
        return output;
    }

    /** @return the schema of the per-key accumulator row kept in keyed state */
    public Schema accumulatorSchema() {
        return accumulator;
    }

    /**
     * @param acc the key's accumulator, or null for its first row
     * @param in the input row
     * @return a new accumulator including {@code in}
     * @throws ArithmeticException if a long sum overflows
     */
    public Row accumulate(Row acc, Row in) {
        Object[] values;
        if (acc == null) {
            values = new Object[accumulator.size()];
            values[0] = 1L;
        } else {
            values = acc.values();
            values[0] = (Long) values[0] + 1;
        }
        for (Aggregator a : aggregators) {
            a.add(values, in);
        }
        return new Row(accumulator, values);
    }

    /**
     * @param acc the key's accumulator after {@code in}
     * @param in the row just accumulated (its key fields are copied)
     * @return the output row: key fields, then each aggregate's current result
     */
    public Row result(Row acc, Row in) {
        Object[] out = new Object[output.size()];
        for (int i = 0; i < keyPositions.length; i++) {
            out[i] = in.get(keyPositions[i]);
        }
        for (int j = 0; j < aggregators.length; j++) {
            out[keyPositions.length + j] = aggregators[j].result(acc);
        }
        return new Row(output, out);
    }

    /**
     * Combines two accumulators of the same key (session windows that merge), as if all their rows had been
     * accumulated into one.
     *
     * @return a new accumulator
     * @throws ArithmeticException if a long sum overflows
     */
    public Row merge(Row a, Row b) {
        Object[] values = a.values();
        values[0] = (Long) values[0] + (Long) b.get(0);
        for (Aggregator ag : aggregators) {
            ag.merge(values, b);
        }
        return new Row(accumulator, values);
    }

    /**
     * @param acc an accumulator
     * @param key a row holding (at least) the key fields, by name (e.g. the runtime's key row of a timer)
     * @return the output row: key fields, then each aggregate's result
     * @throws IllegalArgumentException if {@code key} lacks a key field
     */
    public Row resultForKey(Row acc, Row key) {
        Object[] out = new Object[output.size()];
        for (int i = 0; i < keyNames.size(); i++) {
            out[i] = key.get(key.schema().require(keyNames.get(i)));
        }
        for (int j = 0; j < aggregators.length; j++) {
            out[keyNames.size() + j] = aggregators[j].result(acc);
        }
        return new Row(output, out);
    }

    /** @return the number of key fields, which lead the output schema */
    public int keyCount() {
        return keyNames.size();
    }

    /** One aggregate's slots in the accumulator array. */
    private sealed interface Aggregator permits Count, Sum, Avg, Extreme {
        void add(Object[] acc, Row in);

        /** Folds the other accumulator's slots into {@code acc}. */
        void merge(Object[] acc, Row other);

        Object result(Row acc);
    }

    private record Count() implements Aggregator {
        @Override
        public void add(Object[] acc, Row in) {
        }

        @Override
        public void merge(Object[] acc, Row other) {
        }

        @Override
        public Object result(Row acc) {
            return acc.get(0);
        }
    }

    private record Sum(int slot, int position, boolean integral) implements Aggregator {
        @Override
        public void add(Object[] acc, Row in) {
            Object v = in.get(position);
            if (v != null) {
                acc[slot] = addTo(acc[slot], (Number) v, integral);
            }
        }

        @Override
        public void merge(Object[] acc, Row other) {
            Object v = other.get(slot);
            if (v != null) {
                acc[slot] = addTo(acc[slot], (Number) v, integral);
            }
        }

        @Override
        public Object result(Row acc) {
            return acc.get(slot);
        }
    }

    private record Avg(int sumSlot, int countSlot, int position, boolean integral) implements Aggregator {
        @Override
        public void add(Object[] acc, Row in) {
            Object v = in.get(position);
            if (v != null) {
                acc[sumSlot] = addTo(acc[sumSlot], (Number) v, integral);
                acc[countSlot] = acc[countSlot] == null ? 1L : (Long) acc[countSlot] + 1;
            }
        }

        @Override
        public void merge(Object[] acc, Row other) {
            Object n = other.get(countSlot);
            if (n != null) {
                acc[sumSlot] = addTo(acc[sumSlot], (Number) other.get(sumSlot), integral);
                acc[countSlot] = acc[countSlot] == null ? n : (Long) acc[countSlot] + (Long) n;
            }
        }

        @Override
        public Object result(Row acc) {
            Object n = acc.get(countSlot);
            return n == null ? null : ((Number) acc.get(sumSlot)).doubleValue() / (Long) n;
        }
    }

    private record Extreme(int slot, int position, boolean max) implements Aggregator {
        @Override
        @SuppressWarnings({"unchecked", "rawtypes"})
        public void add(Object[] acc, Row in) {
            fold(acc, in.get(position));
        }

        @Override
        public void merge(Object[] acc, Row other) {
            fold(acc, other.get(slot));
        }

        @SuppressWarnings({"unchecked", "rawtypes"})
        private void fold(Object[] acc, Object v) {
            if (v == null) {
                return;
            }
            Object current = acc[slot];
            if (current == null) {
                acc[slot] = v;
                return;
            }
            int cmp = ((Comparable) v).compareTo(current);
            if (max ? cmp > 0 : cmp < 0) {
                acc[slot] = v;
            }
        }

        @Override
        public Object result(Row acc) {
            return acc.get(slot);
        }
    }

    private static Object addTo(Object sum, Number v, boolean integral) {
        if (integral) {
            return sum == null ? v.longValue() : Math.addExact((Long) sum, v.longValue());
        }
        return sum == null ? v.doubleValue() : (Double) sum + v.doubleValue();
    }
}
