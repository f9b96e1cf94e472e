package io.weir.plugin.kafkasource;

import io.weir.api.FieldType;
import io.weir.api.Row;
import io.weir.api.Schema;

import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.Base64;

/**
 * Decodes one Kafka record value, a flat UTF-8 JSON object, into a {@link Row} of a fixed schema,
 * with the value mapping of the {@code file} source: {@code long}/{@code timestamp} integral numbers
 * (timestamps also ISO-8601 instants), {@code int} integral numbers in int range, {@code double} any
 * number, {@code boolean} true/false, {@code string} strings, {@code bytes} base64 strings; JSON null and
 * missing fields give null, fields not in the schema are skipped (nested values included), a repeated
 * field keeps its last value. Anything else throws {@link IllegalArgumentException} naming the field.
 *
 * <p>Not thread-safe: one per source subtask.
 */
final class FlatJsonDecoder {
    private final Schema schema;
    private String s;
    private int i;

    /** @param schema the schema of every decoded row */
    FlatJsonDecoder(Schema schema) {
        this.schema = schema;
    }

    /**
     * @param value the record value (null is an error: a tombstone has no fields)
     * @return the row
     * @throws IllegalArgumentException saying what does not fit, e.g. {@code field 'delay': expected long, got "x"}
     */
    Row decode(byte[] value) {
        if (value == null) {
            throw new IllegalArgumentException("the value is null (a tombstone), not a JSON object");
        }
        try {
            s = StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(java.nio.ByteBuffer.wrap(value)).toString();
        } catch (CharacterCodingException e) {
            throw new IllegalArgumentException("the value is not UTF-8 text");
        }
        i = 0;
        Object[] values = new Object[schema.size()];
        ws();
        expect('{');
        ws();
        if (peek() == '}') {
            i++;
        } else {
            while (true) {
                ws();
                String name = string();
                ws();
                expect(':');
                ws();
                int index = schema.indexOf(name);
                Object raw = value();
                if (index >= 0) {
                    values[index] = convert(index, raw);
                }
                ws();
                char c = next();
                if (c == '}') {
                    break;
                }
                if (c != ',') {
                    throw error("expected ',' or '}' at character " + (i - 1));
                }
            }
        }
        ws();
        if (i < s.length()) {
            throw error("unexpected text after the object at character " + i);
        }
        return new Row(schema, values);
    }

    /** @return a String, a {@link Num}, Boolean, null, or {@link #NESTED} for arrays and objects */
    private Object value() {
        char c = peek();
        switch (c) {
            case '"' -> {
                return string();
            }
            case '{', '[' -> {
                skipNested();
                return NESTED;
            }
            case 't' -> {
                word("true");
                return Boolean.TRUE;
            }
            case 'f' -> {
                word("false");
                return Boolean.FALSE;
            }
            case 'n' -> {
                word("null");
                return null;
            }
            default -> {
                int start = i;
                while (i < s.length() && "+-0123456789.eE".indexOf(s.charAt(i)) >= 0) {
                    i++;
                }
                String lexeme = s.substring(start, i);
                if (!lexeme.matches("-?(0|[1-9][0-9]*)(\\.[0-9]+)?([eE][+-]?[0-9]+)?")) {
                    throw error("malformed value at character " + start + ": '" + (lexeme.isEmpty() ? c : lexeme) + "'");
                }
                return new Num(lexeme);
            }
        }
    }

    private static final Object NESTED = new Object();

    private record Num(String lexeme) {
    }

    private Object convert(int index, Object raw) {
        if (raw == null) {
            return null;
        }
        FieldType type = schema.field(index).type();
        String name = schema.field(index).name();
        try {
            return switch (type) {
                case LONG -> raw instanceof Num n ? Long.parseLong(n.lexeme) : mismatch(name, type, raw);
                case INT -> raw instanceof Num n ? Integer.parseInt(n.lexeme) : mismatch(name, type, raw);
                case DOUBLE -> raw instanceof Num n ? Double.parseDouble(n.lexeme) : mismatch(name, type, raw);
                case BOOLEAN -> raw instanceof Boolean b ? b : mismatch(name, type, raw);
                case STRING -> raw instanceof String str ? str : mismatch(name, type, raw);
                case BYTES -> raw instanceof String str ? Base64.getDecoder().decode(str) : mismatch(name, type, raw);
                case TIMESTAMP -> raw instanceof Num n ? Long.parseLong(n.lexeme)
                        : raw instanceof String str ? Instant.parse(str).toEpochMilli() : mismatch(name, type, raw);
            };
        } catch (NumberFormatException | DateTimeParseException e) {
            return mismatch(name, type, raw);
        }
    }

    private Object mismatch(String name, FieldType type, Object raw) {
        String found = raw == NESTED ? "an object or array" : raw instanceof Num n ? n.lexeme
                : raw instanceof String str ? "\"" + str + "\"" : String.valueOf(raw);
        throw error("field '" + name + "': expected " + type.name().toLowerCase(java.util.Locale.ROOT) + ", got " + found);
    }

    private String string() {
        expect('"');
        StringBuilder out = new StringBuilder();
        while (true) {
            char c = next();
            if (c == '"') {
                return out.toString();
            }
            if (c == '\\') {
                char e = next();
                switch (e) {
                    case '"', '\\', '/' -> out.append(e);
                    case 'b' -> out.append('\b');
                    case 'f' -> out.append('\f');
                    case 'n' -> out.append('\n');
                    case 'r' -> out.append('\r');
                    case 't' -> out.append('\t');
                    case 'u' -> {
                        if (i + 4 > s.length()) {
                            throw error("truncated \\u escape");
                        }
                        try {
                            out.append((char) Integer.parseInt(s.substring(i, i + 4), 16));
                        } catch (NumberFormatException ex) {
                            throw error("malformed \\u escape at character " + i);
                        }
                        i += 4;
                    }
                    default -> throw error("malformed escape \\" + e + " at character " + (i - 1));
                }
            } else if (c < 0x20) {
                throw error("control character in a string at character " + (i - 1));
            } else {
                out.append(c);
            }
        }
    }

    private void skipNested() {
        int depth = 0;
        do {
            char c = peek();
            if (c == '"') {
                string();
                continue;
            }
            i++;
            if (c == '{' || c == '[') {
                depth++;
            } else if (c == '}' || c == ']') {
                depth--;
            }
        } while (depth > 0);
    }

    private void word(String w) {
        if (!s.startsWith(w, i)) {
            throw error("malformed value at character " + i);
        }
        i += w.length();
    }

    private void ws() {
        while (i < s.length() && " \t\r\n".indexOf(s.charAt(i)) >= 0) {
            i++;
        }
    }

    private void expect(char c) {
        if (next() != c) {
            throw error("expected '" + c + "' at character " + (i - 1));
        }
    }

    private char peek() {
        if (i >= s.length()) {
            throw error("the JSON ends early");
        }
        return s.charAt(i);
    }

    private char next() {
        char c = peek();
        i++;
        return c;
    }

    private static IllegalArgumentException error(String message) {
        return new IllegalArgumentException(message);
    }
}
