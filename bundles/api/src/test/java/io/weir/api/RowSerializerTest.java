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
}
