package io.weir.api;

import org.junit.jupiter.api.Test;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;

import static org.assertj.core.api.Assertions.assertThat;

/** Round trips of {@link RowSerializer} with nulls in every bitmap byte, for narrow and wide schemas. */
class RowSerializerTest {
    /** A field of every type and a second LONG and STRING. */
    private static final Schema NINE_FIELDS = Schema.builder().field("s", FieldType.STRING).field("b", FieldType.BYTES)
            .field("l", FieldType.LONG).field("i", FieldType.INT).field("d", FieldType.DOUBLE).field("z", FieldType.BOOLEAN)
            .field("t", FieldType.TIMESTAMP).field("k", FieldType.LONG).field("n", FieldType.STRING).build();

    /** @return the serialized form of a {@link #NINE_FIELDS} row whose last field is null */
    private static ByteArrayOutputStream nineFieldRowBytes() throws IOException {
        Row row = new Row(NINE_FIELDS, "héllo", new byte[] {1, 2, 3}, 5L, 6, 7.5, true, 8L, 42L, null);
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        new RowSerializer(NINE_FIELDS).serialize(row, new DataOutputStream(bytes));
        return bytes;
    }

    @Test
    void rowsOfOneNineAndSeventyFieldsWithNullsRoundTrip() throws IOException {
        for (int fields : new int[] {1, 9, 64, 65, 70}) {
            Schema.Builder b = Schema.builder();
            Object[] values = new Object[fields];
            for (int i = 0; i < fields; i++) {
                b.field("f" + i, i % 2 == 0 ? FieldType.LONG : FieldType.STRING);
                values[i] = i % 3 == 1 ? null : i % 2 == 0 ? (Object) (i * 7L) : "s" + i;
            }
            Row row = new Row(b.build(), values);
            RowSerializer serializer = new RowSerializer(row.schema());
            ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            serializer.serialize(row, new DataOutputStream(bytes));
            DataInputStream in = new DataInputStream(new ByteArrayInputStream(bytes.toByteArray()));

            assertThat(serializer.deserialize(in)).as("%d fields", fields).isEqualTo(row);
            assertThat(in.available()).as("bytes left after %d fields", fields).isZero();
        }
    }

    @Test
    void decodingOnlyBuildsTheNamedFieldsAndSkipsTheBytesOfEveryOtherType() throws IOException {
        Schema schema = NINE_FIELDS;
        ByteArrayOutputStream bytes = nineFieldRowBytes();
        bytes.write(99); // the next row's first byte: must be where the stream stands after the row
        DataInputStream in = new DataInputStream(new ByteArrayInputStream(bytes.toByteArray()));

        Row decoded = new RowSerializer(schema).decodingOnly(new int[] {7, 3, 7}).deserialize(in);

        assertThat(decoded).isEqualTo(new Row(schema, null, null, null, 6, null, null, null, 42L, null));
        assertThat(in.read()).isEqualTo(99);
    }

    /**
     * The binary form, pinned byte by byte (checkpoints, savepoints and the network use it): a null bitmap byte per 8
     * fields (bit i = field i is null), then each non-null value as {@link java.io.DataOutput} writes it
     * (big-endian; a string and bytes behind an int length, a string in UTF-8). Expected bytes written by hand.
     */
    @Test
    void serializeWritesTheDocumentedBinaryForm() throws IOException {
        Schema schema = Schema.builder().field("k", FieldType.LONG).field("i", FieldType.INT).field("s", FieldType.STRING)
                .field("z", FieldType.BOOLEAN).field("d", FieldType.DOUBLE).field("b", FieldType.BYTES)
                .field("t", FieldType.TIMESTAMP).field("n", FieldType.LONG).build();
        Row row = new Row(schema, 1L, -2, "é", true, 1.0, new byte[] {7}, 258L, null);
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();

        new RowSerializer(schema).serialize(row, new DataOutputStream(bytes));

        assertThat(java.util.HexFormat.of().formatHex(bytes.toByteArray())).isEqualTo(
                "80" // bitmap: field 7 (n) is null
                + "0000000000000001" // k
                + "fffffffe" // i
                + "00000002" + "c3a9" // s: length, UTF-8
                + "01" // z
                + "3ff0000000000000" // d: IEEE 754 bits of 1.0
                + "00000001" + "07" // b: length, bytes
                + "0000000000000102"); // t
    }

    @Test
    void serializeIntoWritesTheBytesOfSerializeForEveryTypeAndNullsInEveryBitmapByte() throws IOException {
        Row row = everyTypeRow();
        RowSerializer serializer = new RowSerializer(row.schema());
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        serializer.serialize(row, new DataOutputStream(bytes));
        byte[] expected = bytes.toByteArray();
        byte[] target = new byte[expected.length + 10];
        java.util.Arrays.fill(target, (byte) 0x55); // stale bytes of an earlier row: the bitmap must not keep them

        int end = serializer.serializeInto(row, target, 3, target.length);

        assertThat(end).isEqualTo(3 + expected.length);
        assertThat(java.util.Arrays.copyOfRange(target, 3, end)).isEqualTo(expected);
    }

    @Test
    void serializeIntoReturnsMinusOneAndWritesNothingAtOrPastTheLimitWhenTheRowDoesNotFit() {
        Schema schema = Schema.builder().field("k", FieldType.LONG).field("s", FieldType.STRING)
                .field("i", FieldType.INT).field("b", FieldType.BYTES).build();
        Row row = new Row(schema, 7L, "abc", 9, new byte[5]);
        RowSerializer serializer = new RowSerializer(schema);
        int size = 1 + 8 + (4 + 3) + 4 + (4 + 5); // bitmap, long, string, int, bytes

        for (int limit = 2; limit < 2 + size; limit++) {
            byte[] target = new byte[40];
            java.util.Arrays.fill(target, (byte) 0x55);

            assertThat(serializer.serializeInto(row, target, 2, limit)).as("limit %d", limit).isEqualTo(-1);
            for (int i = limit; i < target.length; i++) {
                assertThat(target[i]).as("byte %d with limit %d", i, limit).isEqualTo((byte) 0x55);
            }
        }
        assertThat(serializer.serializeInto(row, new byte[40], 2, 2 + size)).isEqualTo(2 + size);
    }

    /** The 70-field row of every type with nulls in every bitmap byte (field i of type {@code FieldType.values()[i % 6]}). */
    private static Row everyTypeRow() {
        Schema.Builder b = Schema.builder();
        FieldType[] kinds = FieldType.values();
        Object[] values = new Object[70];
        for (int i = 0; i < values.length; i++) {
            FieldType t = kinds[i % kinds.length];
            b.field("f" + i, t);
            values[i] = i % 5 == 3 ? null : switch (t) {
                case LONG, TIMESTAMP -> (i % 2 == 0 ? -1L : 1L) * (0x0102030405060708L + i);
                case INT -> -i * 1_000_003;
                case DOUBLE -> i / 3.0;
                case BOOLEAN -> i % 2 == 0;
                case STRING -> "é" + i;
                case BYTES -> new byte[] {(byte) i, (byte) -i};
            };
        }
        return new Row(b.build(), values);
    }

    @Test
    void deserializeFromAnArrayReadsTheRowThatSerializeWroteForEveryTypeAndNullsInEveryBitmapByte() throws IOException {
        Row row = everyTypeRow();
        RowSerializer serializer = new RowSerializer(row.schema());
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        bytes.write(new byte[] {9, 9, 9}); // the end of an earlier row
        serializer.serialize(row, new DataOutputStream(bytes));
        int length = bytes.size() - 3;
        bytes.write(new byte[] {0x7f, 0x7f}); // the next row's length
        byte[] buffer = bytes.toByteArray();

        assertThat(serializer.deserialize(buffer, 3, length)).isEqualTo(row);
    }

    @Test
    void deserializeFromAnArrayBuildsOnlyTheFieldsDecodingOnlyNames() throws IOException {
        Schema schema = NINE_FIELDS;
        ByteArrayOutputStream bytes = nineFieldRowBytes();
        byte[] buffer = bytes.toByteArray();

        assertThat(new RowSerializer(schema).decodingOnly(new int[] {7, 3, 0, 5}).deserialize(buffer, 0, buffer.length))
                .isEqualTo(new Row(schema, "héllo", null, null, 6, null, true, null, 42L, null));
    }

    @Test
    void deserializeFromAnArrayRejectsATruncatedRowANegativeLengthAndARangeOutsideTheArray() throws IOException {
        Schema schema = Schema.builder().field("k", FieldType.LONG).field("s", FieldType.STRING)
                .field("i", FieldType.INT).field("b", FieldType.BYTES).build();
        RowSerializer serializer = new RowSerializer(schema);
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        serializer.serialize(new Row(schema, 7L, "abc", 9, new byte[5]), new DataOutputStream(bytes));
        byte[] full = bytes.toByteArray();
        assertThat(full).hasSize(1 + 8 + (4 + 3) + 4 + (4 + 5));

        for (int length = 0; length < full.length; length++) {
            int cut = length;
            org.assertj.core.api.Assertions.assertThatThrownBy(() -> serializer.deserialize(full, 0, cut))
                    .as("row cut to %d bytes", cut).isInstanceOf(java.io.EOFException.class).hasMessageContaining("row");
        }
        byte[] negative = full.clone();
        negative[1 + 8] = (byte) 0x80; // the string's length: Integer.MIN_VALUE + 3
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> serializer.deserialize(negative, 0, negative.length))
                .isInstanceOf(IOException.class).hasMessageContaining("negative string length");
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> serializer.deserialize(full, 1, full.length))
                .isInstanceOf(IndexOutOfBoundsException.class);
    }

    @Test
    void deserializeIntoOverwritesEveryValueOfTheReusedRowIncludingNullsAndFieldsNotDecoded() throws IOException {
        RowSerializer serializer = new RowSerializer(NINE_FIELDS);
        Row first = new Row(NINE_FIELDS, "a", new byte[] {1}, 1L, 1, 1.0, false, 1L, 1L, "one");
        Row second = new Row(NINE_FIELDS, null, new byte[] {2, 2}, 2L, null, 2.5, true, null, 2L, "two");
        byte[] firstBytes = bytesOf(serializer, first);
        byte[] secondBytes = bytesOf(serializer, second);
        Row.Reusable reused = new Row.Reusable(NINE_FIELDS);

        Row read = serializer.deserializeInto(firstBytes, 0, firstBytes.length, reused);
        assertThat(read).isSameAs(reused.row()).isEqualTo(first);
        int firstHash = read.hashCode();
        assertThat(serializer.deserializeInto(secondBytes, 0, secondBytes.length, reused)).isSameAs(read)
                .isEqualTo(second);
        assertThat(read.hashCode()).as("the cached hash of the first row is dropped")
                .isEqualTo(new Row(NINE_FIELDS, second.values()).hashCode()).isNotEqualTo(firstHash);

        // a serializer decoding only some fields leaves the others null, also where the reused row held a value
        assertThat(serializer.decodingOnly(new int[] {7, 2}).deserializeInto(firstBytes, 0, firstBytes.length, reused))
                .isEqualTo(new Row(NINE_FIELDS, null, null, 1L, null, null, null, null, 1L, null));
    }

    @Test
    void deserializeIntoHoldsLongsUnboxedAndSerializesThemToTheSameBytes() throws IOException {
        RowSerializer serializer = new RowSerializer(NINE_FIELDS);
        Row row = new Row(NINE_FIELDS, "a", new byte[] {1}, Long.MIN_VALUE, 1, 1.0, false, 1_700_000_000_000L, -1L, null);
        byte[] bytes = bytesOf(serializer, row);
        Row.Reusable reused = new Row.Reusable(NINE_FIELDS);

        Row read = serializer.deserializeInto(bytes, 0, bytes.length, reused);

        assertThat(read.getLong(2)).isEqualTo(Long.MIN_VALUE);
        assertThat(read.getLong(6)).isEqualTo(1_700_000_000_000L);
        assertThat(read).isEqualTo(row).hasSameHashCodeAs(row);
        assertThat(bytesOf(serializer, read)).as("serialize of the unboxed row").isEqualTo(bytes);
        byte[] into = new byte[bytes.length];
        assertThat(serializer.serializeInto(read, into, 0, into.length)).isEqualTo(bytes.length);
        assertThat(into).isEqualTo(bytes);

        Row.Reusable set = new Row.Reusable(NINE_FIELDS);
        for (int i = 0; i < NINE_FIELDS.size(); i++) {
            set.setFrom(i, read, i);
        }
        set.setLong(7, -1L);
        assertThat(bytesOf(serializer, set.row())).as("a row written with setLong").isEqualTo(bytes);
    }

    private static byte[] bytesOf(RowSerializer serializer, Row row) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        serializer.serialize(row, new DataOutputStream(bytes));
        return bytes.toByteArray();
    }

    @Test
    void deserializeIntoRejectsAReusedRowOfAnotherArity() throws IOException {
        RowSerializer serializer = new RowSerializer(NINE_FIELDS);
        byte[] bytes = nineFieldRowBytes().toByteArray();
        Row.Reusable narrow = new Row.Reusable(Schema.builder().field("k", FieldType.LONG).build());

        org.assertj.core.api.Assertions.assertThatThrownBy(() -> serializer.deserializeInto(bytes, 0, bytes.length, narrow))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("1 fields");
    }

    @Test
    void decodingOnlyRejectsAPositionOutsideTheSchema() {
        RowSerializer serializer = new RowSerializer(Schema.builder().field("k", FieldType.LONG).build());

        org.assertj.core.api.Assertions.assertThatThrownBy(() -> serializer.decodingOnly(new int[] {1}))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("field position 1");
    }
}
