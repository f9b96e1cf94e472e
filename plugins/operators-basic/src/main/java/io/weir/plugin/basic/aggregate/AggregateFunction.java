package io.weir.plugin.basic.aggregate;

import java.util.Locale;

/** The functions of a {@code keyed-aggregate} (config {@code aggregates[i].fn}). */
public enum AggregateFunction {
    /** Number of rows of the key (null field values included); LONG. Takes no field. */
    COUNT,
    /** Sum of the non-null values; LONG for long/int fields, DOUBLE for double fields; null until a non-null value. */
    SUM,
    /** Mean of the non-null values; DOUBLE; null until a non-null value. */
    AVG,
    /** Smallest non-null value, of the field's type; null until a non-null value. */
    MIN,
    /** Largest non-null value, of the field's type; null until a non-null value. */
    MAX;

    /**
     * @param name {@code count}, {@code sum}, {@code avg}, {@code min} or {@code max}, case-insensitive
     * @throws IllegalArgumentException listing the valid names
     */
    public static AggregateFunction parse(String name) {
        for (AggregateFunction f : values()) {
            if (f.name().equalsIgnoreCase(name)) {
                return f;
            }
        }
        throw new IllegalArgumentException("must be one of count, sum, avg, min, max; got '" + name + "'");
    }

    /** @return the lower-case name used in job files */
    public String jobName() {
        return name().toLowerCase(Locale.ROOT);
    }
}
