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
        Schema schema = Schema.builder().field("s", FieldType.STRING).field("b", FieldType.BYTES).field("l", FieldType.LONG)
                .field("i", FieldType.INT).field("d", FieldType.DOUBLE).field("z", FieldType.BOOLEAN)
                .field("t", FieldType.TIMESTAMP).field("k", FieldType.LONG).field("n", FieldType.STRING).build();
        Row row = new Row(schema, "héllo", new byte[] {1, 2, 3}, 5L, 6, 7.5, true, 8L, 42L, null);
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        new RowSerializer(schema).serialize(row, new DataOutputStream(bytes));
        bytes.write(99); // the next row's first byte: must be where the stream stands after the row
        DataInputStream in = new DataInputStream(new ByteArrayInputStream(bytes.toByteArray()));

        Row decoded = new RowSerializer(schema).decodingOnly(new int[] {7, 3, 7}).deserialize(in);

        assertThat(decoded).isEqualTo(new Row(schema, null, null, null, 6, null, null, null, 42L, null));
        assertThat(in.read()).isEqualTo(99);
    }

    @Test
    void decodingOnlyRejectsAPositionOutsideTheSchema() {
        RowSerializer serializer = new RowSerializer(Schema.builder().field("k", FieldType.LONG).build());

        org.assertj.core.api.Assertions.assertThatThrownBy(() -> serializer.decodingOnly(new int[] {1}))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("field position 1");
    }
}
