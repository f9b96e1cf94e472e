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
 */
public final class Row {
    private final Schema schema;
    private final Object[] values;
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
    }

    /** @return the schema */
    public Schema schema() {
        return schema;
    }

    /** @return the number of fields */
    public int arity() {
        return values.length;
    }

    /** @return the value at position {@code i}, possibly null */
    public Object get(int i) {
        return values[i];
    }

    /** @return the value of the named field; see {@link Schema#require} for errors */
    public Object get(String name) {
        return values[schema.require(name)];
    }

    /** @return the long value at {@code i}; a ClassCastException if the field is not LONG/TIMESTAMP */
    public long getLong(int i) {
        return (Long) values[i];
    }

    /** @return the double value at {@code i}, widening LONG and INT fields */
    public double getDouble(int i) {
        return ((Number) values[i]).doubleValue();
    }

    /** @return the string at {@code i} */
    public String getString(int i) {
        return (String) values[i];
    }

    /** @return a copy with the value at {@code i} replaced */
    public Row with(int i, Object value) {
        Object[] copy = values.clone();
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
            out[i] = values[positions[i]];
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
            this.row = new Row(schema, new Object[schema.size()]);
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

        /** @return the row: the same object on every call, holding the values set so far */
        public Row row() {
            return row;
        }

        /**
         * For {@link RowSerializer#deserializeInto}, which overwrites every value: drops the row's cached hash.
         *
         * @return the row's values array itself, one slot per field
         */
        Object[] valuesToOverwrite() {
            row.hash = 0;
            return row.values;
        }
    }

    /** @return a copy of the values array */
    public Object[] values() {
        return values.clone();
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
            Object a = values[i];
            Object b = r.values[i];
            if (a != b && (a == null || b == null || !(a instanceof byte[] x ? b instanceof byte[] y && Arrays.equals(x, y) : a.equals(b)))) {
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
            for (Object v : values) {
                h = 31 * h + (v == null ? 0 : v instanceof byte[] b ? Arrays.hashCode(b) : v.hashCode());
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
            sb.append(values[i] instanceof byte[] b ? "<" + b.length + " bytes>" : values[i]);
        }
        return sb.append('}').toString();
    }
}
