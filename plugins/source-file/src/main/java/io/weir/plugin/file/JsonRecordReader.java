package io.weir.plugin.file;

import io.weir.api.FieldType;
import io.weir.api.Row;
import io.weir.api.Schema;

import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.channels.ReadableByteChannel;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.Arrays;
import java.util.Base64;
import java.util.Locale;

/**
 * Streams the records (flat JSON objects) of one UTF-8 JSON file as {@link Row}s of a fixed schema,
 * in either {@link JsonFormat#ARRAY} or {@link JsonFormat#LINES} layout, from the start or from a
 * {@link FilePosition} (a byte offset between two records). A small hand-written tokenizer over
 * bytes: no JSON library (and so no service-provider lookup inside OSGi), no tree is built, one
 * 64 KiB byte buffer is reused, and {@link #byteOffset()} is exact, which is what lets a restore
 * seek instead of re-reading the file.
 *
 * <p>Kept instead of Parsson's streaming parser (org.eclipse.parsson 1.1.7, JSON-P) after measuring
 * both ({@code benchmarks/jmh.sh JsonRecordReaderBenchmark -p file=.../flights-3m.jsonl.gz -f 2 -i 8},
 * first 100,000 flights, same rows out, 2 shared cores at load 7-10, records/µs ± 99.9% CI): this
 * reader 2.86 ± 0.70 on JSON lines and 2.29 ± 0.63 on the array form; Parsson 2.61 ± 0.78 on the
 * array form but 0.30 ± 0.14 on JSON lines, because JSON-P parses one top-level value per parser and
 * so needs a parser per line (about 9× slower on the layout of the flights data). Parsson also
 * reports positions in chars of its decoded input, not bytes, so it could not give the byte offset a
 * restore seeks to.
 *
 * <p>Value mapping, per field type: {@code long}/{@code timestamp} take integral numbers
 * (timestamps: ms since the epoch, or an ISO-8601 instant string such as
 * {@code "2001-01-01T00:01:00.000Z"}); {@code int} integral numbers in int range; {@code double} any
 * number in double range; {@code boolean} true/false; {@code string} strings; {@code bytes} base64
 * strings. Numbers follow RFC 8259's grammar exactly ({@code -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?}):
 * {@code 007}, {@code 1.5f}, {@code 1d}, {@code .5}, {@code 0x1p3}, {@code NaN}, {@code Infinity}
 * are malformed. JSON {@code null} and missing fields give null; fields not in the schema are
 * skipped, whatever their value (nested objects and arrays included); a repeated field keeps its
 * last value. Anything else, and bytes that are not UTF-8 inside a string, is a
 * {@link MalformedRecordException} naming file, record number (from 1), field and byte offset.
 *
 * <p>Not thread-safe: owned by one source subtask (its task thread).
 */
final class JsonRecordReader implements Closeable {
    private static final int EOF = -1;
    /** What a reader of a malformed-record error should do; records are numbered from 1 in messages. */
    private static final String FIX = "; fix or remove that record, then run the job again (it resumes from its last checkpoint)";

    private final ReadableByteChannel in;
    private final Path file;
    private final Schema schema;
    private final FieldType[] types;
    private final JsonFormat configuredFormat;
    private final byte[] buf = new byte[64 * 1024];
    private final ByteBuffer window = ByteBuffer.wrap(buf);
    /** Scratch for literals and numbers (ASCII only). */
    private final StringBuilder scratch = new StringBuilder(64);
    /** Scratch for a string's UTF-8 bytes when it spans buffers or has escapes. */
    private byte[] stringBytes = new byte[256];
    private final StringBuilder stringChars = new StringBuilder(64);
    private final CharsetDecoder utf8 = StandardCharsets.UTF_8.newDecoder();
    /** The schema's field names in UTF-8, by field index. */
    private final byte[][] nameBytes;

    /** Index in {@link #buf} of the next unread byte. */
    private int pos;
    /** Number of valid bytes in {@link #buf}. */
    private int limit;
    /** File offset (bytes) of {@code buf[0]}. */
    private long bufferStart;
    /** The layout found at the start of the file; null until the first record is requested. */
    private JsonFormat layout;
    /** Index of the next record (records returned or skipped so far, counted from the start of the file). */
    private long recordIndex;
    /** File offset (bytes) after the last record read or skipped; see {@link #byteOffset()}. */
    private long recordEnd;
    private boolean exhausted;

    /**
     * @param in the file's bytes, positioned at {@code start.byteOffset()}; closed by {@link #close}
     * @param file the file, for error messages
     * @param schema the fields to extract
     * @param format the expected layout, or {@link JsonFormat#AUTO}
     * @param start where {@code in} is positioned: {@link FilePosition#START} or a position this
     *        reader reported (its record index, offset and layout are taken; the rest is the caller's)
     */
    JsonRecordReader(ReadableByteChannel in, Path file, Schema schema, JsonFormat format, FilePosition start) {
        this.in = in;
        this.file = file;
        this.schema = schema;
        this.configuredFormat = format;
        this.types = new FieldType[schema.size()];
        this.nameBytes = new byte[types.length][];
        for (int i = 0; i < types.length; i++) {
            types[i] = schema.field(i).type();
            nameBytes[i] = schema.field(i).name().getBytes(StandardCharsets.UTF_8);
        }
        this.recordIndex = start.recordIndex();
        this.bufferStart = start.byteOffset();
        this.recordEnd = start.byteOffset();
        this.layout = start.layout() == JsonFormat.AUTO ? null : start.layout();
    }

    /** @return the 0-based index of the record the next {@link #next} or {@link #skip} reads */
    long recordIndex() {
        return recordIndex;
    }

    /**
     * @return the file offset in bytes just after the last record read or skipped (its closing
     *         brace), or where this reader started if it read none: a reader started there continues
     *         with the next record, also when this one has found the end of the file since
     */
    long byteOffset() {
        return recordEnd;
    }

    /** @return the layout found at the start of the file, {@link JsonFormat#AUTO} before the first record */
    JsonFormat layout() {
        return layout == null ? JsonFormat.AUTO : layout;
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
        recordEnd = bufferStart + pos;
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
        recordEnd = bufferStart + pos;
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
            int index = readFieldIndex();
            expectColon();
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

    /**
     * Reads a field name starting at the current '"'.
     *
     * @return the field's index in the schema, or -1 if the schema has no such field
     */
    private int readFieldIndex() throws IOException {
        // fast path: the whole name in the buffer, ASCII, no escapes: compare bytes, allocate nothing
        int start = pos + 1;
        int end = start;
        while (end < limit && buf[end] != '"' && buf[end] != '\\' && buf[end] >= 0x20) {
            end++;
        }
        if (end < limit && buf[end] == '"') {
            int length = end - start;
            for (int i = 0; i < nameBytes.length; i++) {
                byte[] name = nameBytes[i];
                if (name.length == length && Arrays.equals(buf, start, end, name, 0, length)) {
                    pos = end + 1;
                    return i;
                }
            }
            pos = end + 1; // the scan stopped at any non-ASCII byte, so this name is ASCII: no UTF-8 to check
            return -1;
        }
        return schema.indexOf(readString());
    }

    private Object readValue(int index) throws IOException {
        FieldType type = types[index];
        int c = peek();
        if ((c == '-' || (c >= '0' && c <= '9')) && (type == FieldType.LONG || type == FieldType.TIMESTAMP)) {
            Long fast = readSmallLong();
            if (fast != null) {
                return fast;
            }
        }
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
                String word = readWord();
                if (word.isEmpty()) {
                    throw syntax("expected a value", c);
                }
                return convertNumber(index, word);
            }
        }
    }

    private Object convertNumber(int index, String lexeme) throws MalformedRecordException {
        if (!isJsonNumber(lexeme)) {
            throw syntax("invalid value '" + lexeme + "' (JSON numbers look like -12, 0.5 or 1.5e-3)", lexeme.charAt(0));
        }
        FieldType type = types[index];
        switch (type) {
            case LONG, TIMESTAMP, INT -> {
                if (lexeme.indexOf('.') >= 0 || lexeme.indexOf('e') >= 0 || lexeme.indexOf('E') >= 0) {
                    throw mismatch(index, "number " + lexeme);
                }
                long v;
                try {
                    v = Long.parseLong(lexeme);
                } catch (NumberFormatException e) {
                    throw mismatch(index, "number " + lexeme + " (out of long range)");
                }
                if (type == FieldType.INT) {
                    if (v < Integer.MIN_VALUE || v > Integer.MAX_VALUE) {
                        throw mismatch(index, "number " + lexeme + " (out of int range)");
                    }
                    return (int) v;
                }
                return v;
            }
            case DOUBLE -> {
                double v = Double.parseDouble(lexeme);
                if (Double.isInfinite(v)) {
                    throw mismatch(index, "number " + lexeme + " (out of double range)");
                }
                return v;
            }
            default -> throw mismatch(index, "number " + lexeme);
        }
    }

    /**
     * Fast path for the common integer: {@code -?(0|[1-9][0-9]{0,17})} wholly in the buffer and
     * followed by a delimiter is converted from the bytes, consumed, and returned.
     *
     * @return the value, or null (nothing consumed) for anything else, which the general path handles
     */
    private Long readSmallLong() {
        int i = pos;
        boolean negative = i < limit && buf[i] == '-';
        if (negative) {
            i++;
        }
        int first = i;
        long v = 0;
        while (i < limit && buf[i] >= '0' && buf[i] <= '9' && i - first < 18) {
            v = v * 10 + (buf[i] - '0');
            i++;
        }
        int digits = i - first;
        if (digits == 0 || i == limit || (digits > 1 && buf[first] == '0')) {
            return null;
        }
        byte next = buf[i];
        if (next != ',' && next != '}' && next != ' ' && next != '\n' && next != '\r' && next != '\t' && next != ']') {
            return null;
        }
        pos = i;
        return negative ? -v : v;
    }

    /** @return whether {@code s} matches RFC 8259's {@code number}: {@code -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?} */
    static boolean isJsonNumber(CharSequence s) {
        int n = s.length();
        int i = 0;
        if (i < n && s.charAt(i) == '-') {
            i++;
        }
        if (i == n) {
            return false;
        }
        if (s.charAt(i) == '0') {
            i++;
        } else if (s.charAt(i) >= '1' && s.charAt(i) <= '9') {
            i = digits(s, i);
        } else {
            return false;
        }
        if (i < n && s.charAt(i) == '.') {
            int after = digits(s, i + 1);
            if (after == i + 1) {
                return false;
            }
            i = after;
        }
        if (i < n && (s.charAt(i) == 'e' || s.charAt(i) == 'E')) {
            i++;
            if (i < n && (s.charAt(i) == '+' || s.charAt(i) == '-')) {
                i++;
            }
            int after = digits(s, i);
            if (after == i) {
                return false;
            }
            i = after;
        }
        return i == n;
    }

    /** @return the index of the first non-digit at or after {@code i} */
    private static int digits(CharSequence s, int i) {
        while (i < s.length() && s.charAt(i) >= '0' && s.charAt(i) <= '9') {
            i++;
        }
        return i;
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
                if (!literal && !isJsonNumber(word)) {
                    throw syntax(word.isEmpty() ? "expected a value" : "invalid value '" + word + "'", c);
                }
            }
        }
    }

    /** Reads a run of literal/number characters (ASCII letters, digits, '+', '-', '.'). */
    private String readWord() throws IOException {
        scratch.setLength(0);
        while (true) {
            if (pos == limit && !fill()) {
                break;
            }
            byte ch = buf[pos];
            if ((ch >= '0' && ch <= '9') || (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z')
                    || ch == '-' || ch == '+' || ch == '.') {
                scratch.append((char) ch);
                pos++;
            } else {
                break;
            }
        }
        return scratch.toString();
    }

    /** Reads a JSON string starting at the current '"', decoding UTF-8 and escapes. */
    @SuppressWarnings("deprecation") // String(byte[], int hibyte, int, int): the fastest copy of ASCII bytes
    private String readString() throws IOException {
        pos++; // opening quote
        int pending = 0; // bytes in stringBytes not yet decoded into stringChars
        boolean chars = false; // whether stringChars holds the start of the string
        while (true) {
            if (pos == limit && !fill()) {
                throw syntax("unterminated string", EOF);
            }
            int start = pos;
            int high = 0;
            while (pos < limit) {
                byte ch = buf[pos];
                if (ch == '"' || ch == '\\' || (ch >= 0 && ch < 0x20)) {
                    break;
                }
                high |= ch;
                pos++;
            }
            if (pos < limit && buf[pos] == '"' && pending == 0 && !chars) {
                // the common case: the whole string in the buffer, no escapes
                String s = high >= 0 ? new String(buf, 0, start, pos - start) : decode(buf, start, pos - start);
                pos++;
                return s;
            }
            int run = pos - start;
            if (pending + run > stringBytes.length) {
                stringBytes = Arrays.copyOf(stringBytes, Math.max(stringBytes.length * 2, pending + run));
            }
            System.arraycopy(buf, start, stringBytes, pending, run);
            pending += run;
            if (pos == limit) {
                continue;
            }
            byte ch = buf[pos];
            if (ch != '"' && ch != '\\') {
                throw syntax("control character in a string", ch);
            }
            if (!chars) {
                stringChars.setLength(0);
                chars = true;
            }
            stringChars.append(decode(stringBytes, 0, pending));
            pending = 0;
            pos++;
            if (ch == '"') {
                return stringChars.toString();
            }
            stringChars.append(readEscape());
        }
    }

    @SuppressWarnings("deprecation") // String(byte[], int hibyte, int, int): the fastest copy of ASCII bytes
    private String decode(byte[] bytes, int offset, int length) throws MalformedRecordException {
        boolean ascii = true;
        for (int i = offset; i < offset + length && ascii; i++) {
            ascii = bytes[i] >= 0;
        }
        if (ascii) {
            return new String(bytes, 0, offset, length);
        }
        try {
            CharBuffer decoded = utf8.reset().decode(ByteBuffer.wrap(bytes, offset, length));
            return decoded.toString();
        } catch (CharacterCodingException e) {
            throw syntax("bytes that are not UTF-8 in a string", bytes[offset] & 0xff);
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

    /** @return the next byte (0..255), consumed, or EOF */
    private int read() throws IOException {
        if (pos == limit && !fill()) {
            return EOF;
        }
        return buf[pos++] & 0xff;
    }

    /** @return the next byte (0..255) without consuming it, or EOF */
    private int peek() throws IOException {
        if (pos == limit && !fill()) {
            return EOF;
        }
        return buf[pos] & 0xff;
    }

    /** Skips JSON whitespace; returns the next byte (0..255) without consuming it, or EOF. */
    private int skipWhitespace() throws IOException {
        while (true) {
            if (pos == limit && !fill()) {
                return EOF;
            }
            byte ch = buf[pos];
            if (ch == ' ' || ch == '\n' || ch == '\r' || ch == '\t') {
                pos++;
            } else {
                return ch & 0xff;
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
            window.clear();
            n = in.read(window);
        } while (n == 0);
        if (n < 0) {
            return false;
        }
        limit = n;
        return true;
    }

    private MalformedRecordException mismatch(int index, String found) {
        return new MalformedRecordException("file " + file + " record " + (recordIndex + 1) + ": field '"
                + schema.field(index).name() + "' expects " + types[index].name().toLowerCase(Locale.ROOT)
                + " but found " + found + " (near byte offset " + (bufferStart + pos) + ")" + FIX);
    }

    private MalformedRecordException syntax(String problem, int found) {
        String what = found == EOF ? "end of file"
                : found >= 0x20 && found < 0x7f ? "'" + (char) found + "'"
                : String.format("byte 0x%02X", found & 0xff);
        return new MalformedRecordException("file " + file + " record " + (recordIndex + 1) + ": " + problem
                + ", found " + what + " at byte offset " + (bufferStart + pos) + FIX);
    }
}
