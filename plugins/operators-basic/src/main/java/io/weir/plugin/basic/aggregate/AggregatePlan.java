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
 * <p>The keyed aggregate keeps a mutable {@link Accumulator} per key and changes it in place
 * ({@link #accumulate(Accumulator, Row)}: no allocation per row); its state form
 * ({@link #accumulatorSerializer()}) is the accumulator row's. The row-valued methods (window aggregates) return
 * new rows and leave their arguments alone.
 *
 * <p>Immutable and thread-safe (the accumulators it changes are the caller's).
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
    /** The aggregators whose {@link Aggregator#check} can fail (integral sums): checked before any slot changes. */
    private final Aggregator[] overflowChecked;
    /** Per accumulator slot: how it is kept in an {@link Accumulator} (index 0, the count, is unused). */
    private final SlotKind[] slotKinds;
    private final boolean withExtremes;
    private final List<AggregateSpec> specs;
    private final AccumulatorSerializer accumulatorSerializer;

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
        List<SlotKind> kinds = new ArrayList<>(List.of(SlotKind.LONG));
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
            SlotKind sumKind = integral ? SlotKind.LONG : SlotKind.DOUBLE;
            switch (spec.function()) {
                case SUM -> {
                    acc.field("s" + j, sumType);
                    kinds.add(sumKind);
                    aggregators[j] = new Sum(slot++, position, integral);
                    out.add(new Field(spec.as(), sumType));
                }
                case AVG -> {
                    acc.field("s" + j, sumType).field("n" + j, FieldType.LONG);
                    kinds.add(sumKind);
                    kinds.add(SlotKind.LONG);
                    aggregators[j] = new Avg(slot, slot + 1, position, integral);
                    slot += 2;
                    out.add(new Field(spec.as(), FieldType.DOUBLE));
                }
                case MIN, MAX -> {
                    acc.field("m" + j, type);
                    kinds.add(SlotKind.OBJECT);
                    aggregators[j] = new Extreme(slot++, position, spec.function() == AggregateFunction.MAX);
                    out.add(new Field(spec.as(), type));
                }
                default -> throw new IllegalStateException("unhandled function " + spec.function());
            }
        }
        this.accumulator = acc.build();
        this.output = new Schema(out);
        this.fieldsRead = read.stream().mapToInt(Integer::intValue).toArray();
        this.slotKinds = kinds.toArray(SlotKind[]::new);
        this.withExtremes = kinds.contains(SlotKind.OBJECT);
        this.overflowChecked = java.util.Arrays.stream(aggregators)
                .filter(a -> a instanceof Sum sum && sum.integral() || a instanceof Avg avg && avg.integral())
                .toArray(Aggregator[]::new);
        this.accumulatorSerializer = new AccumulatorSerializer(this);
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

    /** @return the keyed-state serializer of {@link Accumulator}s: the accumulator row's binary form, deep copies */
    public io.weir.api.serialization.TypeSerializer<Accumulator> accumulatorSerializer() {
        return accumulatorSerializer;
    }

    /**
     * Folds {@code in} into {@code acc} in place; allocates nothing (but the accumulator of a key's first row).
     *
     * @param acc the key's accumulator, changed in place, or null for its first row
     * @param in the input row
     * @return {@code acc}, or a new accumulator holding just {@code in} if {@code acc} was null
     * @throws ArithmeticException if a long sum overflows; {@code acc} is then unchanged
     */
    public Accumulator accumulate(Accumulator acc, Row in) {
        if (acc == null) {
            acc = new Accumulator(slotKinds.length, withExtremes);
        }
        for (Aggregator a : overflowChecked) {
            a.check(acc, in);
        }
        acc.count++;
        for (Aggregator a : aggregators) {
            a.add(acc, in);
        }
        return acc;
    }

    /**
     * @param acc the key's accumulator, or null for its first row (left unchanged)
     * @param in the input row
     * @return a new accumulator row including {@code in}
     * @throws ArithmeticException if a long sum overflows
     */
    public Row accumulate(Row acc, Row in) {
        return toRow(accumulate(acc == null ? null : fromRow(acc), in));
    }

    /**
     * @param acc the key's accumulator after {@code in}
     * @param in the row just accumulated (its key fields are copied)
     * @return the output row: key fields, then each aggregate's current result
     */
    public Row result(Accumulator acc, Row in) {
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
     * {@link #result(Accumulator, Row)} written into a reused row instead of a new one (for outputs that do not
     * retain rows, {@link io.weir.api.operator.Output#retainsRows()}).
     *
     * @param acc the key's accumulator after {@code in}
     * @param in the row just accumulated (its key fields are copied)
     * @param target a reusable row of {@link #outputSchema()}, overwritten
     * @return {@code target}'s row: key fields, then each aggregate's current result
     */
    public Row resultInto(Accumulator acc, Row in, Row.Reusable target) {
        for (int i = 0; i < keyPositions.length; i++) {
            target.setFrom(i, in, keyPositions[i]);
        }
        for (int j = 0; j < aggregators.length; j++) {
            aggregators[j].resultInto(acc, target, keyPositions.length + j);
        }
        return target.row();
    }

    /**
     * Combines two accumulators of the same key (session windows that merge), as if all their rows had been
     * accumulated into one.
     *
     * @return a new accumulator row; {@code a} and {@code b} are unchanged
     * @throws ArithmeticException if a long sum overflows
     */
    public Row merge(Row a, Row b) {
        Accumulator into = fromRow(a);
        Accumulator other = fromRow(b);
        for (Aggregator ag : overflowChecked) {
            ag.checkMerge(into, other);
        }
        into.count += other.count;
        for (Aggregator ag : aggregators) {
            ag.merge(into, other);
        }
        return toRow(into);
    }

    /**
     * @param acc an accumulator row
     * @param key a row holding (at least) the key fields, by name (e.g. the runtime's key row of a timer)
     * @return the output row: key fields, then each aggregate's result
     * @throws IllegalArgumentException if {@code key} lacks a key field
     */
    public Row resultForKey(Row acc, Row key) {
        Accumulator a = fromRow(acc);
        Object[] out = new Object[output.size()];
        for (int i = 0; i < keyNames.size(); i++) {
            out[i] = key.get(key.schema().require(keyNames.get(i)));
        }
        for (int j = 0; j < aggregators.length; j++) {
            out[keyNames.size() + j] = aggregators[j].result(a);
        }
        return new Row(output, out);
    }

    /**
     * @param acc an accumulator of this plan
     * @return its row of {@link #accumulatorSchema()}: count, then each slot (null where unset)
     */
    public Row toRow(Accumulator acc) {
        Object[] values = new Object[slotKinds.length];
        values[0] = acc.count;
        for (int slot = 1; slot < values.length; slot++) {
            values[slot] = switch (slotKinds[slot]) {
                case LONG -> acc.set[slot] ? (Object) acc.words[slot] : null;
                case DOUBLE -> acc.set[slot] ? (Object) Double.longBitsToDouble(acc.words[slot]) : null;
                case OBJECT -> acc.extremes[slot];
            };
        }
        return new Row(accumulator, values);
    }

    /**
     * Writes the {@link io.weir.api.RowSerializer} form of {@link #toRow}{@code (acc)} without building the row: its
     * null bitmap, the count, then each set slot's 8 bytes (a double as {@link Double#doubleToLongBits}, as the row's
     * {@code Double} would be written). Only for plans without min/max ({@link #hasExtremes()} false), whose slots are
     * all words.
     *
     * @param acc an accumulator of this plan
     * @param out where the bytes go, in one {@code write} call
     * @throws IOException from {@code out}
     * @throws IllegalStateException if the plan has min/max slots
     */
    void writeWords(Accumulator acc, java.io.DataOutput out) throws java.io.IOException {
        if (withExtremes) {
            throw new IllegalStateException("accumulators of " + accumulator + " hold min/max values: write toRow's row");
        }
        int n = slotKinds.length;
        int bitmap = (n + 7) / 8;
        int set = 1;
        for (int slot = 1; slot < n; slot++) {
            set += acc.set[slot] ? 1 : 0;
        }
        byte[] bytes = new byte[bitmap + 8 * set];
        int pos = bitmap;
        WORDS.set(bytes, pos, acc.count);
        pos += 8;
        for (int slot = 1; slot < n; slot++) {
            if (!acc.set[slot]) {
                bytes[slot >> 3] |= (byte) (1 << (slot & 7));
            } else {
                long w = acc.words[slot];
                WORDS.set(bytes, pos, slotKinds[slot] == SlotKind.DOUBLE ? Double.doubleToLongBits(Double.longBitsToDouble(w)) : w);
                pos += 8;
            }
        }
        out.write(bytes, 0, bytes.length);
    }

    /** Big-endian 8-byte stores, the byte order of {@link java.io.DataOutput#writeLong}. */
    private static final java.lang.invoke.VarHandle WORDS =
            java.lang.invoke.MethodHandles.byteArrayViewVarHandle(long[].class, java.nio.ByteOrder.BIG_ENDIAN);

    /** @return whether the plan has a min or max aggregate (slots holding values of the input rows) */
    boolean hasExtremes() {
        return withExtremes;
    }

    /**
     * @param row a row of {@link #accumulatorSchema()} (from {@link #toRow} or a checkpoint)
     * @return a new accumulator holding its values
     * @throws IllegalArgumentException if the row has another number of fields, a null count, or a slot value of
     *         another type than its schema field's
     */
    public Accumulator fromRow(Row row) {
        if (row.arity() != slotKinds.length || !(row.get(0) instanceof Long count)) {
            throw new IllegalArgumentException("accumulator row " + row + " does not match " + accumulator
                    + " (a non-null LONG count first)");
        }
        Accumulator acc = new Accumulator(slotKinds.length, withExtremes);
        acc.count = count;
        for (int slot = 1; slot < slotKinds.length; slot++) {
            Object v = row.get(slot);
            if (v == null) {
                continue;
            }
            switch (slotKinds[slot]) {
                case LONG -> acc.words[slot] = requireType(v, Long.class, slot);
                case DOUBLE -> acc.words[slot] = Double.doubleToRawLongBits(requireType(v, Double.class, slot));
                case OBJECT -> acc.extremes[slot] = v;
            }
            if (slotKinds[slot] != SlotKind.OBJECT) {
                acc.set[slot] = true;
            }
        }
        return acc;
    }

    private <T> T requireType(Object v, Class<T> type, int slot) {
        if (!type.isInstance(v)) {
            throw new IllegalArgumentException("accumulator field '" + accumulator.field(slot).name() + "' holds "
                    + v.getClass().getSimpleName() + " " + v + ", expected " + type.getSimpleName());
        }
        return type.cast(v);
    }

    /** @return the number of key fields, which lead the output schema */
    public int keyCount() {
        return keyNames.size();
    }

    /** How an accumulator slot is kept in an {@link Accumulator}. */
    private enum SlotKind {
        /** {@code words[slot]}, {@code set[slot]}. */
        LONG,
        /** {@code words[slot]} as raw double bits, {@code set[slot]}. */
        DOUBLE,
        /** {@code extremes[slot]}, null until set. */
        OBJECT
    }

    /** One aggregate's slots in an {@link Accumulator}. */
    private sealed interface Aggregator permits Count, Sum, Avg, Extreme {
        /** Folds the row's field into {@code acc}; only after every {@link #check} passed. */
        void add(Accumulator acc, Row in);

        /** Folds the other accumulator's slots into {@code acc}; only after every {@link #checkMerge} passed. */
        void merge(Accumulator acc, Accumulator other);

        Object result(Accumulator acc);

        /** Writes {@link #result} into {@code target}'s position {@code pos}, unboxed where it is a long. */
        default void resultInto(Accumulator acc, Row.Reusable target, int pos) {
            target.set(pos, result(acc));
        }

        /** @throws ArithmeticException if {@link #add} would overflow; changes nothing */
        default void check(Accumulator acc, Row in) {
        }

        /** @throws ArithmeticException if {@link #merge} would overflow; changes nothing */
        default void checkMerge(Accumulator acc, Accumulator other) {
        }
    }

    private record Count() implements Aggregator {
        @Override
        public void add(Accumulator acc, Row in) {
        }

        @Override
        public void merge(Accumulator acc, Accumulator other) {
        }

        @Override
        public Object result(Accumulator acc) {
            return acc.count;
        }

        @Override
        public void resultInto(Accumulator acc, Row.Reusable target, int pos) {
            target.setLong(pos, acc.count);
        }
    }

    private record Sum(int slot, int position, boolean integral) implements Aggregator {
        @Override
        public void add(Accumulator acc, Row in) {
            Object v = in.get(position);
            if (v != null) {
                addTo(acc, slot, (Number) v, integral);
            }
        }

        @Override
        public void check(Accumulator acc, Row in) {
            checkAdd(acc, slot, in.get(position));
        }

        @Override
        public void merge(Accumulator acc, Accumulator other) {
            if (other.set[slot]) {
                addWords(acc, slot, other.words[slot], integral);
            }
        }

        @Override
        public void checkMerge(Accumulator acc, Accumulator other) {
            if (acc.set[slot] && other.set[slot]) {
                Math.addExact(acc.words[slot], other.words[slot]);
            }
        }

        @Override
        public Object result(Accumulator acc) {
            return !acc.set[slot] ? null : integral ? (Object) acc.words[slot] : (Object) Double.longBitsToDouble(acc.words[slot]);
        }
    }

    private record Avg(int sumSlot, int countSlot, int position, boolean integral) implements Aggregator {
        @Override
        public void add(Accumulator acc, Row in) {
            Object v = in.get(position);
            if (v != null) {
                addTo(acc, sumSlot, (Number) v, integral);
                acc.words[countSlot]++;
                acc.set[countSlot] = true;
            }
        }

        @Override
        public void check(Accumulator acc, Row in) {
            checkAdd(acc, sumSlot, in.get(position));
        }

        @Override
        public void merge(Accumulator acc, Accumulator other) {
            if (other.set[countSlot]) {
                addWords(acc, sumSlot, other.words[sumSlot], integral);
                acc.words[countSlot] += other.words[countSlot];
                acc.set[countSlot] = true;
            }
        }

        @Override
        public void checkMerge(Accumulator acc, Accumulator other) {
            if (acc.set[countSlot] && other.set[countSlot]) {
                Math.addExact(acc.words[sumSlot], other.words[sumSlot]);
            }
        }

        @Override
        public Object result(Accumulator acc) {
            if (!acc.set[countSlot]) {
                return null;
            }
            double sum = integral ? acc.words[sumSlot] : Double.longBitsToDouble(acc.words[sumSlot]);
            return sum / acc.words[countSlot];
        }
    }

    private record Extreme(int slot, int position, boolean max) implements Aggregator {
        @Override
        public void add(Accumulator acc, Row in) {
            fold(acc, in.get(position));
        }

        @Override
        public void merge(Accumulator acc, Accumulator other) {
            fold(acc, other.extremes[slot]);
        }

        @SuppressWarnings({"unchecked", "rawtypes"})
        private void fold(Accumulator acc, Object v) {
            if (v == null) {
                return;
            }
            Object current = acc.extremes[slot];
            if (current == null) {
                acc.extremes[slot] = v;
                return;
            }
            int cmp = ((Comparable) v).compareTo(current);
            if (max ? cmp > 0 : cmp < 0) {
                acc.extremes[slot] = v;
            }
        }

        @Override
        public Object result(Accumulator acc) {
            return acc.extremes[slot];
        }
    }

    /** @throws ArithmeticException if adding {@code v} (a number or null) to the long sum in {@code slot} overflows */
    private static void checkAdd(Accumulator acc, int slot, Object v) {
        if (acc.set[slot] && v instanceof Number n) {
            Math.addExact(acc.words[slot], n.longValue());
        }
    }

    /** Adds a row's value to a sum slot (the first value sets it); integral sums are checked by {@link Sum#check}. */
    private static void addTo(Accumulator acc, int slot, Number v, boolean integral) {
        addWords(acc, slot, integral ? v.longValue() : Double.doubleToRawLongBits(v.doubleValue()), integral);
    }

    /** Adds {@code word} (a long, or a double's raw bits) to a sum slot; unset slots take it as is. */
    private static void addWords(Accumulator acc, int slot, long word, boolean integral) {
        if (!acc.set[slot]) {
            acc.words[slot] = word;
            acc.set[slot] = true;
        } else if (integral) {
            acc.words[slot] += word;
        } else {
            acc.words[slot] = Double.doubleToRawLongBits(Double.longBitsToDouble(acc.words[slot]) + Double.longBitsToDouble(word));
        }
    }
}
