package io.weir.plugin.basic.filter;

import io.weir.api.FieldType;
import io.weir.api.Row;
import io.weir.api.Schema;
import io.weir.api.plugin.PluginConfig;

import java.util.Objects;

/**
 * A validated {@code field op value} condition, compiled against the input schema. Numeric fields
 * (long, int, timestamp, double) compare with numbers (as longs when both are integral, otherwise as
 * doubles), strings lexicographically (UTF-16 order) with strings, booleans with booleans (only
 * {@code ==}/{@code !=}); bytes fields cannot be filtered. A null field value never passes.
 * Immutable and thread-safe.
 *
 * @param position the field's position in the input schema
 * @param type the field's type
 * @param comparison the operator
 * @param value the constant: Long or Double for numeric fields, String, or Boolean
 */
public record FilterCondition(int position, FieldType type, Comparison comparison, Object value) {
    /** @throws IllegalArgumentException if the value does not fit the field type */
    public FilterCondition {
        Objects.requireNonNull(type, "type");
        Objects.requireNonNull(comparison, "comparison");
        Objects.requireNonNull(value, "value");
        String problem = check(type, comparison, value);
        if (problem != null) {
            throw new IllegalArgumentException(problem);
        }
    }

    /**
     * Reads {@code field}, {@code op} and {@code value} from a {@code filter} config.
     *
     * @throws IllegalArgumentException naming the config field if one is missing, unknown or does not fit
     */
    public static FilterCondition from(PluginConfig config, Schema input) {
        // every setting is read before the first can fail, so that an unknown key is reported with all settings
        Object value = config.raw("value");
        config.has("op");
        String field = config.requireString("field");
        int position = input.indexOf(field);
        if (position < 0) {
            throw config.error("field", "names no input field: '" + field + "'; available fields: " + input.names());
        }
        Comparison comparison;
        try {
            comparison = Comparison.parse(config.requireString("op"));
        } catch (IllegalArgumentException e) {
            throw config.error("op", e.getMessage());
        }
        if (value == null) {
            throw config.error("value", "is required (a number, string or boolean)");
        }
        FieldType type = input.field(position).type();
        String problem = check(type, comparison, value);
        if (problem != null) {
            throw config.error("value", problem);
        }
        return new FilterCondition(position, type, comparison, value);
    }

    private static String check(FieldType type, Comparison comparison, Object value) {
        return switch (type) {
            case LONG, INT, TIMESTAMP, DOUBLE -> value instanceof Number ? null
                    : "must be a number to compare with " + type.name().toLowerCase() + " field, got " + value;
            case STRING -> value instanceof String ? null : "must be a string to compare with a string field, got " + value;
            case BOOLEAN -> !(value instanceof Boolean) ? "must be true or false to compare with a boolean field, got " + value
                    : comparison.isEquality() ? null : "booleans only support == and !=";
            case BYTES -> "bytes fields cannot be filtered";
        };
    }

    /** @return whether the row passes */
    public boolean test(Row row) {
        Object v = row.get(position);
        if (v == null) {
            return false;
        }
        int cmp;
        if (v instanceof Double || value instanceof Double) {
            cmp = Double.compare(((Number) v).doubleValue(), ((Number) value).doubleValue());
        } else if (v instanceof Number n) {
            cmp = Long.compare(n.longValue(), ((Number) value).longValue());
        } else if (v instanceof String s) {
            cmp = s.compareTo((String) value);
        } else {
            cmp = Boolean.compare((Boolean) v, (Boolean) value);
        }
        return comparison.holds(cmp);
    }
}
