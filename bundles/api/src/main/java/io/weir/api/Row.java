package io.weir.api;

import java.util.Arrays;

/**
 * A record flowing between operators: a {@link Schema} and one value per field.
 *
 * <p>Rows are what operators of different plugins exchange, so no plugin needs another's classes.
 * Between tasks a row travels in its binary form ({@link RowSerializer}); inside a chain the object
 * itself is handed on. Values are {@code null} or an instance of the field type's
 * {@link FieldType#javaClass()}. A row must not be modified after it was emitted; {@link #with}
 * returns a copy. The one exception is a {@link Reusable}'s row: its owner (an operator) overwrites it for its next
 * emission, and only emits it to an output whose {@link io.weir.api.operator.Output#retainsRows()} is false, which
 * references it no longer than the {@code collect} call.
 *
 * <p>{@link #equals} and {@link #hashCode} compare values (byte arrays by content), so a row of key
 * fields can serve as a key. The hash is stable across JVMs (it hashes strings, numbers and bytes by
 * value), which key-group assignment relies on.
 *
 * <p>A {@link Reusable}'s row may hold a {@code long} unboxed ({@link Reusable#setLong}): the record path reads and
 * writes key and count fields of every record through {@link #getLong}, {@link #hashOf}, {@link #fieldEquals} and
 * {@link Reusable#setFrom} without a {@code Long} object per value. {@link #get} boxes such a value on first call (and
 * keeps the box), so readers see the same {@code Long} values either way; equality, hash and binary form do not depend
 * on how a value is held.
 */
public final class Row {
    private final Schema schema;
    /**
     * Marks a value held unboxed in {@link #longs} (reusable rows only); never handed out. Package-private for
     * {@link RowSerializer}, which decodes into a reusable row's arrays.
     */
    static final Object UNBOXED = new Object();
    /** One value per field, or {@link #UNBOXED}. */
    private final Object[] values;
    /** A {@link Reusable}'s row: per field, the long of a value marked {@link #UNBOXED}; null in every other row. */
    private final long[] longs;
    /** Cached {@link #hashCode()}; 0 = not computed yet. Racy but benign, as in {@link String}. */
    private int hash;

    /**
     * @param schema the schema
     * @param values one value per field; the array is taken over, not copied
     * @throws IllegalArgumentException if the number of values differs from the number of fields
     */
    public Row(Schema schema, Object... values) {
        if (values.length != schema.size()) {
            throw new IllegalArgumentException("row has " + values.length + " values but schema " + schema
                    + " has " + schema.size() + " fields");
        }
        this.schema = schema;
        this.values = values;
        this.longs = null;
    }

    /** A reusable row: all values null, with room for unboxed longs. */
    private Row(Schema schema) {
        this.schema = schema;
        this.values = new Object[schema.size()];
        this.longs = new long[values.length];
    }

    /** @return the schema */
    public Schema schema() {
        return schema;
    }

    /** @return the number of fields */
    public int arity() {
        return values.length;
    }

    /**
     * @return the value at position {@code i}, possibly null; a value held unboxed is boxed on the first call and the
     *         box kept for the next
     */
    public Object get(int i) {
        Object v = values[i];
        if (v != UNBOXED) {
            return v;
        }
        Long boxed = longs[i];
        values[i] = boxed;
        return boxed;
    }

    /** @return the value of the named field; see {@link Schema#require} for errors */
    public Object get(String name) {
        return get(schema.require(name));
    }

    /** @return whether the value at {@code i} is null (without boxing it) */
    public boolean isNull(int i) {
        return values[i] == null;
    }

    /**
     * @return the long value at {@code i} of a LONG or TIMESTAMP field, or an INT field's value widened; never boxes
     * @throws NullPointerException if the value is null
     * @throws ClassCastException if the field holds a value of another type
     */
    public long getLong(int i) {
        Object v = values[i];
        return v == UNBOXED ? longs[i] : v instanceof Integer n ? n : (Long) v;
    }

    /** @return the double value at {@code i}, widening LONG and INT fields */
    public double getDouble(int i) {
        Object v = values[i];
        return v == UNBOXED ? longs[i] : ((Number) v).doubleValue();
    }

    /** @return the string at {@code i} */
    public String getString(int i) {
        return (String) values[i];
    }

    /** @return a copy with the value at {@code i} replaced */
    public Row with(int i, Object value) {
        Object[] copy = values();
        copy[i] = value;
        return new Row(schema, copy);
    }

    /**
     * @param positions field positions to keep
     * @param target the schema of the result, whose fields match those positions
     * @return a new row holding just those values
     */
    public Row project(int[] positions, Schema target) {
        Object[] out = new Object[positions.length];
        for (int i = 0; i < positions.length; i++) {
            out[i] = boxed(positions[i]);
        }
        return new Row(target, out);
    }

    /**
     * A row that its owner overwrites and emits again, to save one row and one values array per emitted row. Only
     * for outputs whose {@link io.weir.api.operator.Output#retainsRows()} is false: everyone else gets immutable
     * rows. Not thread-safe: owned by one operator on its task thread.
     */
    public static final class Reusable {
        private final Row row;

        /** @param schema the schema of the row; its values start as null */
        public Reusable(Schema schema) {
            this.row = new Row(schema);
        }

        /**
         * Overwrites one value (the row's cached hash is dropped).
         *
         * @param i the position, 0 to arity - 1
         * @param value null or an instance of the field type's {@link FieldType#javaClass()} (not checked)
         * @return this
         * @throws ArrayIndexOutOfBoundsException if {@code i} is not a position of the schema
         */
        public Reusable set(int i, Object value) {
            row.values[i] = value;
            row.hash = 0;
            return this;
        }

        /**
         * Overwrites one value with a {@code long}, held unboxed: no {@code Long} is allocated unless someone calls
         * {@link Row#get} on it (the row's cached hash is dropped).
         *
         * @param i the position of a LONG or TIMESTAMP field (not checked: on another field, {@link Row#get} would
         *        return a {@code Long} where the schema promises another class)
         * @param value the value
         * @return this
         * @throws ArrayIndexOutOfBoundsException if {@code i} is not a position of the schema
         */
        public Reusable setLong(int i, long value) {
            row.longs[i] = value;
            row.values[i] = UNBOXED;
            row.hash = 0;
            return this;
        }

        /**
         * Overwrites value {@code i} with {@code from}'s value {@code j}, as {@code set(i, from.get(j))} would but
         * without boxing an unboxed long.
         *
         * @return this
         * @throws ArrayIndexOutOfBoundsException if {@code i} or {@code j} is not a position of its row's schema
         */
        public Reusable setFrom(int i, Row from, int j) {
            Object v = from.values[j];
            return v == UNBOXED ? setLong(i, from.longs[j]) : set(i, v);
        }

        /** @return the row: the same object on every call, holding the values set so far */
        public Row row() {
            return row;
        }

        /**
         * For {@link RowSerializer#deserializeInto}, which overwrites every value: drops the row's cached hash.
         *
         * @return the row's values array itself, one slot per field (a long may be stored as {@link #UNBOXED} with
         *         its value in {@link #longsToOverwrite()})
         */
        Object[] valuesToOverwrite() {
            row.hash = 0;
            return row.values;
        }

        /** @return the row's unboxed longs, one slot per field, for {@link RowSerializer#deserializeInto} */
        long[] longsToOverwrite() {
            return row.longs;
        }
    }

    /** @return a copy of the values array (unboxed longs boxed in the copy) */
    public Object[] values() {
        Object[] copy = values.clone();
        if (longs != null) {
            for (int i = 0; i < copy.length; i++) {
                if (copy[i] == UNBOXED) {
                    copy[i] = longs[i];
                }
            }
        }
        return copy;
    }

    /** @return the value at {@code i}, boxed if it is held unboxed (without keeping the box) */
    private Object boxed(int i) {
        Object v = values[i];
        return v == UNBOXED ? (Object) longs[i] : v;
    }

    /**
     * @return the hash {@link #hashCode} combines for the value at {@code i}, without boxing it: 0 for null, a byte
     *         array's {@link Arrays#hashCode(byte[])}, else the value's own {@code hashCode()} ({@link Long#hashCode(long)}
     *         for a long)
     */
    public int hashOf(int i) {
        Object v = values[i];
        return v == null ? 0 : v == UNBOXED ? Long.hashCode(longs[i]) : v instanceof byte[] b ? Arrays.hashCode(b) : v.hashCode();
    }

    /**
     * @return whether the value at {@code i} equals {@code other}'s value at {@code j} as {@link #equals} compares
     *         values (byte arrays by content, both null counts as equal), without boxing either
     * @throws ArrayIndexOutOfBoundsException if a position is outside its row
     */
    public boolean fieldEquals(int i, Row other, int j) {
        Object a = values[i];
        Object b = other.values[j];
        if (a == UNBOXED) {
            return b == UNBOXED ? longs[i] == other.longs[j] : b instanceof Long y && y == longs[i];
        }
        if (b == UNBOXED) {
            return a instanceof Long x && x == other.longs[j];
        }
        return a == b || a != null && b != null && (a instanceof byte[] x ? b instanceof byte[] y && Arrays.equals(x, y) : a.equals(b));
    }

    @Override
    public boolean equals(Object o) {
        if (this == o) {
            return true;
        }
        if (!(o instanceof Row r) || r.values.length != values.length || r.hashCode() != hashCode()) {
            return false;
        }
        for (int i = 0; i < values.length; i++) {
            if (!fieldEquals(i, r, i)) {
                return false;
            }
        }
        return true;
    }

    /**
     * @return {@code 31}-based combination of the values' hashes (byte arrays by content): the same
     *         value as {@link Arrays#deepHashCode} of the values, computed once per row and cached
     */
    @Override
    public int hashCode() {
        int h = hash;
        if (h == 0) {
            h = 1;
            for (int i = 0; i < values.length; i++) {
                h = 31 * h + hashOf(i);
            }
            hash = h;
        }
        return h;
    }

    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder("{");
        for (int i = 0; i < values.length; i++) {
            if (i > 0) {
                sb.append(", ");
            }
            sb.append(schema.field(i).name()).append('=');
            Object v = boxed(i);
            sb.append(v instanceof byte[] b ? "<" + b.length + " bytes>" : v);
        }
        return sb.append('}').toString();
    }
}
