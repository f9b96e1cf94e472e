package io.weir.api;

import java.util.Base64;

/**
 * Encodes rows of one schema as JSON objects (the file sink writes one per line, the Kafka sink one per
 * record value): field names as keys in schema order;
 * strings escaped per RFC 8259; long/int/timestamp (ms) as integers; doubles as JSON numbers
 * (NaN and infinities, which JSON cannot represent, as {@code null}); booleans; bytes as base64
 * strings; nulls as {@code null}. Immutable and thread-safe.
 */
public final class RowJsonEncoder {
    private final FieldType[] types;
    /** Per field the text before its value: <code>{"name":</code> or <code>,"name":</code>. */
    private final String[] prefixes;

    /** @param schema the schema of every encoded row */
    public RowJsonEncoder(Schema schema) {
        types = new FieldType[schema.size()];
        prefixes = new String[schema.size()];
        for (int i = 0; i < types.length; i++) {
            types[i] = schema.field(i).type();
            StringBuilder p = new StringBuilder(i == 0 ? "{" : ",");
            appendString(schema.field(i).name(), p);
            prefixes[i] = p.append(':').toString();
        }
    }

    /**
     * Appends the row as one JSON object (no line break).
     *
     * @param row a row of the schema given at construction
     * @param out where the object is appended
     * @throws ClassCastException if a value does not have its field's type
     */
    public void append(Row row, StringBuilder out) {
        if (types.length == 0) {
            out.append('{');
        }
        for (int i = 0; i < types.length; i++) {
            out.append(prefixes[i]);
            Object v = row.get(i);
            if (v == null) {
                out.append("null");
                continue;
            }
            switch (types[i]) {
                case STRING -> appendString((String) v, out);
                case BYTES -> out.append('"').append(Base64.getEncoder().encodeToString((byte[]) v)).append('"');
                case DOUBLE -> {
                    double d = (Double) v;
                    out.append(Double.isFinite(d) ? Double.toString(d) : "null");
                }
                default -> out.append(v);
            }
        }
        out.append('}');
    }

    /** Appends {@code s} as a quoted, escaped JSON string. */
    private static void appendString(String s, StringBuilder out) {
        out.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> out.append("\\\"");
                case '\\' -> out.append("\\\\");
                case '\n' -> out.append("\\n");
                case '\r' -> out.append("\\r");
                case '\t' -> out.append("\\t");
                case '\b' -> out.append("\\b");
                case '\f' -> out.append("\\f");
                default -> {
                    if (c < 0x20) {
                        out.append(String.format("\\u%04x", (int) c));
                    } else {
                        out.append(c);
                    }
                }
            }
        }
        out.append('"');
    }
}
