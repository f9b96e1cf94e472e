package io.weir.plugin.file;

import io.weir.api.FieldType;
import io.weir.api.Row;
import io.weir.api.Schema;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.channels.Channels;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The tokenizer: RFC 8259 numbers, UTF-8 strings across buffer boundaries, byte offsets. */
class JsonRecordReaderTest {
    private static final Path FILE = Path.of("/data/in.jsonl");
    private static final Schema SCHEMA = Schema.builder()
            .field("d", FieldType.DOUBLE).field("n", FieldType.LONG).field("s", FieldType.STRING).build();

    @ParameterizedTest(name = "double {0}")
    @ValueSource(strings = {"1.5f", "1d", "-Infinity", "Infinity", "NaN", "-NaN", "0x1p3", "007.5", ".5", "1.", "+1",
            "1e", "1e+", "--1", "-", "1.5.5", "1e5e5", "01", "-01"})
    void numberOutsideTheJsonGrammarInADoubleFieldIsAMalformedRecord(String lexeme) {
        assertMalformedAtRecord2("{\"d\":" + lexeme + "}", "invalid value '" + lexeme + "'");
    }

    @ParameterizedTest(name = "long {0}")
    @ValueSource(strings = {"007", "-007", "00", "0x10", "1L"})
    void numberOutsideTheJsonGrammarInALongFieldIsAMalformedRecord(String lexeme) {
        assertMalformedAtRecord2("{\"n\":" + lexeme + "}", "invalid value '" + lexeme + "'");
    }

    @ParameterizedTest(name = "skipped field {0}")
    @ValueSource(strings = {"007", "1.5f", "NaN", "-Infinity", "[1, 0x1p3]", "{\"a\":1d}"})
    void numberOutsideTheJsonGrammarInAFieldNotInTheSchemaIsAMalformedRecordToo(String value) {
        assertMalformedAtRecord2("{\"other\":" + value + "}", "");
    }

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource({"-0, -0.0", "0, 0.0", "1e5, 100000.0", "1E-5, 0.00001", "-1.5e+3, -1500.0", "0.5, 0.5",
            "123.456e-2, 1.23456", "4.9e-324, 4.9E-324", "1.7976931348623157e308, 1.7976931348623157E308"})
    void validJsonNumbersAreReadAsDoubles(String lexeme, double expected) throws IOException {
        Row row = readOne("{\"d\":" + lexeme + "}");
        assertThat(row.get("d")).isEqualTo(expected);
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource({"-0, 0", "0, 0", "42, 42", "-9223372036854775808, -9223372036854775808",
            "9223372036854775807, 9223372036854775807"})
    void validIntegralJsonNumbersAreReadAsLongs(String lexeme, long expected) throws IOException {
        assertThat(readOne("{\"n\":" + lexeme + "}").get("n")).isEqualTo(expected);
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"9223372036854775808", "-9223372036854775809", "100000000000000000000"})
    void integerOutsideLongRangeIsAMalformedRecord(String lexeme) {
        assertMalformedAtRecord2("{\"n\":" + lexeme + "}",
                "field 'n' expects long but found number " + lexeme + " (out of long range)");
    }

    @Test
    void doubleOutsideDoubleRangeIsAMalformedRecord() {
        assertMalformedAtRecord2("{\"d\":1e400}", "field 'd' expects double but found number 1e400 (out of double range)");
    }

    @Test
    void fractionOrExponentInALongFieldIsAMalformedRecord() {
        assertMalformedAtRecord2("{\"n\":1e5}", "field 'n' expects long but found number 1e5");
    }

    @Test
    void stringsWithMultiByteCharactersAndEscapesAcrossBufferBoundariesAreDecoded() throws IOException {
        // long strings span the 64 KiB buffer at every alignment; escapes and 2-, 3- and 4-byte characters mixed in
        StringBuilder json = new StringBuilder();
        List<String> expected = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
            StringBuilder raw = new StringBuilder();
            StringBuilder escaped = new StringBuilder();
            for (int j = 0; j < 2_000 + i * 97; j++) {
                String piece = switch (j % 5) {
                    case 0 -> "a";
                    case 1 -> "\u00e9";
                    case 2 -> "\u65e5";
                    case 3 -> "\ud83d\ude00";
                    default -> "\n";
                };
                raw.append(piece);
                escaped.append(piece.equals("\n") ? (j % 2 == 0 ? "\\n" : "\\u000a") : piece);
            }
            expected.add(raw.toString());
            json.append("{\"s\":\"").append(escaped).append("\"}\n");
        }
        List<Object> strings = new ArrayList<>();
        try (JsonRecordReader reader = reader(json.toString())) {
            for (Row row = reader.next(); row != null; row = reader.next()) {
                strings.add(row.get("s"));
            }
        }
        assertThat(strings).containsExactlyElementsOf(expected);
    }

    @Test
    void bytesThatAreNotUtf8InAStringAreAMalformedRecord() {
        byte[] bad = "{\"s\":\"ok\"}\n{\"s\":\"a\u00ffb\"}\n".getBytes(StandardCharsets.ISO_8859_1);
        JsonRecordReader reader = new JsonRecordReader(Channels.newChannel(new ByteArrayInputStream(bad)), FILE, SCHEMA,
                JsonFormat.AUTO, FilePosition.START);

        assertThatThrownBy(() -> {
            reader.next();
            reader.next();
        }).isInstanceOf(MalformedRecordException.class)
                .hasMessageContaining("record 2: bytes that are not UTF-8 in a string");
    }

    @Test
    void fieldNamesWithEscapesOrNonAsciiCharactersAreMatchedByTheirDecodedText() throws IOException {
        Schema schema = Schema.builder().field("n", FieldType.LONG).field("caf\u00e9", FieldType.LONG).build();
        String json = "{\"\\u006e\":1,\"caf\u00e9\":2,\"caf\\u00e9x\":3,\"\u00e9\":4}";
        try (JsonRecordReader reader = new JsonRecordReader(
                Channels.newChannel(new ByteArrayInputStream(json.getBytes(StandardCharsets.UTF_8))), FILE, schema,
                JsonFormat.AUTO, FilePosition.START)) {
            assertThat(reader.next()).isEqualTo(new io.weir.api.Row(schema, 1L, 2L));
        }
    }

    @Test
    void byteOffsetCountsBytesNotCharacters() throws IOException {
        String first = "{\"s\":\"\u65e5\u672c\"}"; // 2 three-byte characters: 14 bytes, 10 chars
        try (JsonRecordReader reader = reader(first + "\n{\"s\":\"x\"}\n")) {
            assertThat(reader.byteOffset()).isZero();
            reader.next();
            assertThat(reader.byteOffset()).isEqualTo(first.getBytes(StandardCharsets.UTF_8).length).isEqualTo(14);
        }
    }

    private static JsonRecordReader reader(String json) {
        return new JsonRecordReader(Channels.newChannel(new ByteArrayInputStream(json.getBytes(StandardCharsets.UTF_8))),
                FILE, SCHEMA, JsonFormat.AUTO, FilePosition.START);
    }

    private static Row readOne(String record) throws IOException {
        try (JsonRecordReader reader = reader(record)) {
            return reader.next();
        }
    }

    /** A valid first record, then {@code record}: reading it fails like any malformed record, numbered 2. */
    private static void assertMalformedAtRecord2(String record, String detail) {
        JsonRecordReader reader = reader("{\"d\":1.0,\"n\":1}\n" + record + "\n");
        assertThatThrownBy(() -> {
            assertThat(reader.next()).isNotNull();
            reader.next();
        }).isInstanceOf(MalformedRecordException.class)
                .hasMessageContaining("file " + FILE + " record 2: ")
                .hasMessageContaining(detail)
                .hasMessageContaining("fix or remove that record, then run the job again");
    }
}
