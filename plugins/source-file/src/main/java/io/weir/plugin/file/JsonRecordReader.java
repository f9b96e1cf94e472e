package io.weir.plugin.file;

import io.weir.api.FieldType;
import io.weir.api.Row;
import io.weir.api.Schema;

import java.io.Closeable;
import java.io.IOException;
import java.io.Reader;
import java.nio.file.Path;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.Base64;

/**
 * Streams the records (flat JSON objects) of one JSON file as {@link Row}s of a fixed schema, in
 * either {@link JsonFormat#ARRAY} or {@link JsonFormat#LINES} layout. A small hand-written
 * tokenizer: no JSON library (and so no service-provider lookup inside OSGi), no tree is built,
 * one 64 KiB char buffer is reused.
 *
 * <p>Value mapping, per field type: {@code long}/{@code timestamp} take integral numbers
 * (timestamps: ms since the epoch, or an ISO-8601 instant string such as
 * {@code "2001-01-01T00:01:00.000Z"}); {@code int} integral numbers in int range; {@code double} any
 * number; {@code boolean} true/false; {@code string} strings; {@code bytes} base64 strings. JSON
 * {@code null} and missing fields give null; fields not in the schema are skipped, whatever their
 * value (nested objects and arrays included); a repeated field keeps its last value. Anything else
 * is a {@link MalformedRecordException} naming file, record index and field.
 *
 * <p>Not thread-safe: owned by one source subtask (its task thread).
 */
final class JsonRecordReader implements Closeable {
    private static final int EOF = -1;

    private final Reader in;
    private final Path file;
    private final Schema schema;
    private final FieldType[] types;
    private final JsonFormat configuredFormat;
    private final char[] buf = new char[64 * 1024];
    private final StringBuilder scratch = new StringBuilder(64);

    /** Index in {@link #buf} of the next unread char. */
    private int pos;
    /** Number of valid chars in {@link #buf}. */
    private int limit;
    /** File offset (chars) of {@code buf[0]}, for error messages. */
    private long bufferStart;
    /** The layout found at the start of the file; null until the first record is requested. */
    private JsonFormat layout;
    /** Index of the next record (records returned or skipped so far). */
    /** What a reader of a malformed-record error should do; records are numbered from 1 in messages. */
    private static final String FIX = "; fix or remove that record, then run the job again (it resumes from its last checkpoint)";
    private long recordIndex;
    private boolean exhausted;

    /**
     * @param in the file's characters; closed by {@link #close}
     * @param file the file, for error messages
     * @param schema the fields to extract
     * @param format the expected layout, or {@link JsonFormat#AUTO}
     */
    JsonRecordReader(Reader in, Path file, Schema schema, JsonFormat format) {
        this.in = in;
        this.file = file;
        this.schema = schema;
        this.configuredFormat = format;
        this.types = new FieldType[schema.size()];
        for (int i = 0; i < types.length; i++) {
            types[i] = schema.field(i).type();
        }
    }

    /** @return the 0-based index of the record the next {@link #next} or {@link #skip} reads */
    long recordIndex() {
        return recordIndex;
    }

    /**
     * Reads the next record.
     *
     * @return the record as a row of the schema, or null at the end of the file
     * @throws MalformedRecordException on invalid JSON or a value that does not fit its field
     * @throws IOException if reading the file fails
     */
    Row next() throws IOException {
        if (!advanceToRecord()) {
            return null;
        }
        Row row = readObject();
        recordIndex++;
        return row;
    }

    /**
     * Skips the next record without converting its values (its JSON syntax is still checked).
     *
     * @return false at the end of the file
     * @throws MalformedRecordException on invalid JSON
     * @throws IOException if reading the file fails
     */
    boolean skip() throws IOException {
        if (!advanceToRecord()) {
            return false;
        }
        skipValue();
        recordIndex++;
        return true;
    }

    @Override
    public void close() throws IOException {
        in.close();
    }

    /** Moves to the '{' of the next record; returns false (and remembers it) at the end of input. */
    private boolean advanceToRecord() throws IOException {
        if (exhausted) {
            return false;
        }
        int c = skipWhitespace();
        if (layout == null) {
            layout = detectLayout(c);
            if (layout == JsonFormat.ARRAY) {
                pos++;
                c = skipWhitespace();
                if (c == ']') {
                    pos++;
                    return end();
                }
            }
        } else if (layout == JsonFormat.ARRAY && recordIndex > 0) {
            if (c == ']') {
                pos++;
                return end();
            }
            if (c != ',') {
                throw syntax("expected ',' or ']' after a record", c);
            }
            pos++;
            c = skipWhitespace();
        }
        if (c == EOF) {
            if (layout == JsonFormat.ARRAY) {
                throw syntax("unterminated array: expected ']'", c);
            }
            return end();
        }
        if (c != '{') {
            throw syntax("expected '{' at the start of a record", c);
        }
        return true;
    }

    private JsonFormat detectLayout(int c) throws MalformedRecordException {
        JsonFormat found = c == '[' ? JsonFormat.ARRAY : c == '{' || c == EOF ? JsonFormat.LINES : null;
        if (found == null) {
            throw syntax("expected '[' (JSON array) or '{' (JSON lines) at the start of the file", c);
        }
        if (configuredFormat != JsonFormat.AUTO && c != EOF && found != configuredFormat) {
            throw syntax("format is configured as '" + configuredFormat + "' but the file looks like '" + found + "'", c);
        }
        return found;
    }

    /** Marks the input as done after checking that nothing but whitespace follows. */
    private boolean end() throws IOException {
        int c = skipWhitespace();
        if (c != EOF) {
            throw syntax("unexpected content after the end of the records", c);
        }
        exhausted = true;
        return false;
    }

    private Row readObject() throws IOException {
        Object[] values = new Object[types.length];
        pos++; // '{'
        int c = skipWhitespace();
        if (c == '}') {
            pos++;
            return new Row(schema, values);
        }
        while (true) {
            if (c != '"') {
                throw syntax("expected a field name", c);
            }
            String name = readString();
            expectColon();
            int index = schema.indexOf(name);
            if (index < 0) {
                skipValue();
            } else {
                values[index] = readValue(index);
            }
            c = skipWhitespace();
            if (c == '}') {
                pos++;
                return new Row(schema, values);
            }
            if (c != ',') {
                throw syntax("expected ',' or '}' in a record", c);
            }
            pos++;
            c = skipWhitespace();
        }
    }

    private void expectColon() throws IOException {
        int c = skipWhitespace();
        if (c != ':') {
            throw syntax("expected ':' after a field name", c);
        }
        pos++;
        skipWhitespace();
    }

    private Object readValue(int index) throws IOException {
        FieldType type = types[index];
        int c = peek();
        switch (c) {
            case '"' -> {
                String s = readString();
                return switch (type) {
                    case STRING -> s;
                    case BYTES -> decodeBase64(index, s);
                    case TIMESTAMP -> parseInstant(index, s);
                    default -> throw mismatch(index, "string \"" + s + "\"");
                };
            }
            case 't', 'f', 'n' -> {
                String word = readWord();
                if (word.equals("null")) {
                    return null;
                }
                if (!word.equals("true") && !word.equals("false")) {
                    throw syntax("invalid literal '" + word + "'", c);
                }
                if (type != FieldType.BOOLEAN) {
                    throw mismatch(index, "boolean " + word);
                }
                return Boolean.valueOf(word);
            }
            case '{' -> throw mismatch(index, "an object");
            case '[' -> throw mismatch(index, "an array");
            default -> {
                if (c != '-' && (c < '0' || c > '9')) {
                    throw syntax("expected a value", c);
                }
                return convertNumber(index, readWord());
            }
        }
    }

    private Object convertNumber(int index, String lexeme) throws MalformedRecordException {
        FieldType type = types[index];
        boolean integral = lexeme.indexOf('.') < 0 && lexeme.indexOf('e') < 0 && lexeme.indexOf('E') < 0;
        try {
            switch (type) {
                case LONG, TIMESTAMP, INT -> {
                    if (!integral) {
                        throw mismatch(index, "number " + lexeme);
                    }
                    long v = Long.parseLong(lexeme);
                    if (type == FieldType.INT) {
                        if (v < Integer.MIN_VALUE || v > Integer.MAX_VALUE) {
                            throw mismatch(index, "number " + lexeme + " (out of int range)");
                        }
                        return (int) v;
                    }
                    return v;
                }
                case DOUBLE -> {
                    return Double.parseDouble(lexeme);
                }
                default -> throw mismatch(index, "number " + lexeme);
            }
        } catch (NumberFormatException e) {
            if (type != FieldType.DOUBLE && integral && lexeme.matches("-?[0-9]+")) {
                throw mismatch(index, "number " + lexeme + " (out of long range)");
            }
            throw syntax("invalid number '" + lexeme + "'", lexeme.charAt(0));
        }
    }

    private Object decodeBase64(int index, String s) throws MalformedRecordException {
        try {
            return Base64.getDecoder().decode(s);
        } catch (IllegalArgumentException e) {
            throw mismatch(index, "string that is not base64 (" + e.getMessage() + ")");
        }
    }

    private Object parseInstant(int index, String s) throws MalformedRecordException {
        try {
            return Instant.parse(s).toEpochMilli();
        } catch (DateTimeParseException e) {
            throw mismatch(index, "string \"" + s + "\" that is not an ISO-8601 instant");
        }
    }

    /** Skips one JSON value of any kind, checking its syntax. */
    private void skipValue() throws IOException {
        int c = skipWhitespace();
        switch (c) {
            case '"' -> readString();
            case '{' -> {
                pos++;
                c = skipWhitespace();
                if (c == '}') {
                    pos++;
                    return;
                }
                while (true) {
                    if (c != '"') {
                        throw syntax("expected a field name", c);
                    }
                    readString();
                    expectColon();
                    skipValue();
                    c = skipWhitespace();
                    pos++;
                    if (c == '}') {
                        return;
                    }
                    if (c != ',') {
                        pos--;
                        throw syntax("expected ',' or '}' in an object", c);
                    }
                    c = skipWhitespace();
                }
            }
            case '[' -> {
                pos++;
                c = skipWhitespace();
                if (c == ']') {
                    pos++;
                    return;
                }
                while (true) {
                    skipValue();
                    c = skipWhitespace();
                    pos++;
                    if (c == ']') {
                        return;
                    }
                    if (c != ',') {
                        pos--;
                        throw syntax("expected ',' or ']' in an array", c);
                    }
                }
            }
            default -> {
                if (c == EOF) {
                    throw syntax("expected a value", c);
                }
                String word = readWord();
                boolean literal = word.equals("true") || word.equals("false") || word.equals("null");
                if (!literal && !word.matches("-?(0|[1-9][0-9]*)(\\.[0-9]+)?([eE][+-]?[0-9]+)?")) {
                    throw syntax("invalid value '" + word + "'", c);
                }
            }
        }
    }

    /** Reads a run of literal/number characters (letters, digits, '+', '-', '.'). */
    private String readWord() throws IOException {
        scratch.setLength(0);
        while (true) {
            if (pos == limit && !fill()) {
                break;
            }
            char ch = buf[pos];
            if ((ch >= '0' && ch <= '9') || (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z')
                    || ch == '-' || ch == '+' || ch == '.') {
                scratch.append(ch);
                pos++;
            } else {
                break;
            }
        }
        return scratch.toString();
    }

    /** Reads a JSON string starting at the current '"', decoding escapes. */
    private String readString() throws IOException {
        pos++; // opening quote
        scratch.setLength(0);
        while (true) {
            if (pos == limit && !fill()) {
                throw syntax("unterminated string", EOF);
            }
            int start = pos;
            while (pos < limit) {
                char ch = buf[pos];
                if (ch == '"' || ch == '\\' || ch < 0x20) {
                    break;
                }
                pos++;
            }
            scratch.append(buf, start, pos - start);
            if (pos == limit) {
                continue;
            }
            char ch = buf[pos];
            if (ch == '"') {
                pos++;
                return scratch.toString();
            }
            if (ch < 0x20) {
                throw syntax("control character in a string", ch);
            }
            pos++; // backslash
            scratch.append(readEscape());
        }
    }

    private char readEscape() throws IOException {
        int e = read();
        return switch (e) {
            case '"' -> '"';
            case '\\' -> '\\';
            case '/' -> '/';
            case 'b' -> '\b';
            case 'f' -> '\f';
            case 'n' -> '\n';
            case 'r' -> '\r';
            case 't' -> '\t';
            case 'u' -> {
                int v = 0;
                for (int i = 0; i < 4; i++) {
                    int h = Character.digit(read(), 16);
                    if (h < 0) {
                        throw syntax("invalid \\u escape in a string", e);
                    }
                    v = (v << 4) | h;
                }
                yield (char) v;
            }
            default -> throw syntax("invalid escape in a string", e);
        };
    }

    private int read() throws IOException {
        if (pos == limit && !fill()) {
            return EOF;
        }
        return buf[pos++];
    }

    private int peek() throws IOException {
        if (pos == limit && !fill()) {
            return EOF;
        }
        return buf[pos];
    }

    /** Skips JSON whitespace; returns the next char without consuming it, or EOF. */
    private int skipWhitespace() throws IOException {
        while (true) {
            if (pos == limit && !fill()) {
                return EOF;
            }
            char ch = buf[pos];
            if (ch == ' ' || ch == '\n' || ch == '\r' || ch == '\t') {
                pos++;
            } else {
                return ch;
            }
        }
    }

    /** Refills the (fully consumed) buffer; false at the end of the file. */
    private boolean fill() throws IOException {
        bufferStart += limit;
        pos = 0;
        limit = 0;
        int n;
        do {
            n = in.read(buf, 0, buf.length);
        } while (n == 0);
        if (n < 0) {
            return false;
        }
        limit = n;
        return true;
    }

    private MalformedRecordException mismatch(int index, String found) {
        return new MalformedRecordException("file " + file + " record " + (recordIndex + 1) + ": field '"
                + schema.field(index).name() + "' expects " + types[index].name().toLowerCase(java.util.Locale.ROOT)
                + " but found " + found + " (near character offset " + (bufferStart + pos) + ")" + FIX);
    }

    private MalformedRecordException syntax(String problem, int found) {
        String what = found == EOF ? "end of file" : "'" + (char) found + "'";
        return new MalformedRecordException("file " + file + " record " + (recordIndex + 1) + ": " + problem
                + ", found " + what + " at character offset " + (bufferStart + pos) + FIX);
    }
}
