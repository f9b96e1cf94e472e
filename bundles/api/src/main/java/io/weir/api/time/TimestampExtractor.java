package io.weir.api.time;

import io.weir.api.FieldType;
import io.weir.api.Row;
import io.weir.api.Schema;

import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;

/**
 * Reads a row's event timestamp (ms since the epoch, UTC) from one field: a {@code long}/{@code timestamp}
 * field holds epoch milliseconds; a {@code string} field holds an ISO-8601 instant
 * ({@code 2001-01-01T00:47:00Z}) or, with a format pattern ({@link DateTimeFormatter} syntax, e.g.
 * {@code yyyy/MM/dd HH:mm}), a local date-time read as UTC. Immutable; safe on any thread.
 */
public final class TimestampExtractor {
    private final String field;
    private final int index;
    private final FieldType type;
    private final String pattern;
    private final DateTimeFormatter formatter;

    private TimestampExtractor(String field, int index, FieldType type, String pattern) {
        this.field = field;
        this.index = index;
        this.type = type;
        this.pattern = pattern;
        this.formatter = pattern == null ? null : DateTimeFormatter.ofPattern(pattern);
    }

    /**
     * @param schema the rows' schema
     * @param field the timestamp field
     * @param pattern a {@link DateTimeFormatter} pattern for a string field, or null for ISO-8601 instants
     * @return the extractor
     * @throws IllegalArgumentException if the field is missing, not a long/timestamp/string field, or the
     *         pattern is invalid or given for a numeric field; the message names the field
     */
    public static TimestampExtractor of(Schema schema, String field, String pattern) {
        int index = schema.indexOf(field);
        if (index < 0) {
            throw new IllegalArgumentException("timestamp field '" + field + "' is not a field of " + schema.names());
        }
        FieldType type = schema.field(index).type();
        if (type != FieldType.LONG && type != FieldType.TIMESTAMP && type != FieldType.STRING) {
            throw new IllegalArgumentException("timestamp field '" + field + "' is " + type
                    + "; it must be long or timestamp (epoch ms) or string (ISO-8601 or timestamp-format)");
        }
        if (pattern != null && type != FieldType.STRING) {
            throw new IllegalArgumentException("timestamp-format applies to string fields; '" + field + "' is " + type);
        }
        try {
            return new TimestampExtractor(field, index, type, pattern);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("timestamp-format '" + pattern + "' is not a date-time pattern: " + e.getMessage(), e);
        }
    }

    /** @return the field read */
    public String field() {
        return field;
    }

    /**
     * @return the row's timestamp, ms since the epoch
     * @throws IllegalArgumentException if the field is null or the string does not parse; names the field and value
     */
    public long extract(Row row) {
        Object v = row.get(index);
        if (v == null) {
            throw new IllegalArgumentException("timestamp field '" + field + "' is null in row " + row);
        }
        if (type != FieldType.STRING) {
            return (Long) v;
        }
        String s = (String) v;
        try {
            return formatter == null ? Instant.parse(s).toEpochMilli()
                    : LocalDateTime.parse(s, formatter).toInstant(ZoneOffset.UTC).toEpochMilli();
        } catch (DateTimeParseException e) {
            throw new IllegalArgumentException("timestamp field '" + field + "' value \"" + s + "\" is not "
                    + (formatter == null ? "an ISO-8601 instant" : "a date-time of format '" + pattern + "'"), e);
        }
    }
}
