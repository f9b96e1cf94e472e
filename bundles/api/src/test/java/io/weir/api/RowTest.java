package io.weir.api;

import org.junit.jupiter.api.Test;

import java.util.Arrays;

import static org.assertj.core.api.Assertions.assertThat;

class RowTest {
    private static final Schema SCHEMA = Schema.builder().field("k", FieldType.LONG).field("s", FieldType.STRING)
            .field("b", FieldType.BYTES).build();

    @Test
    void rowsWithEqualValuesAreEqualAndHashAlikeIncludingByteArraysByContent() {
        Row a = new Row(SCHEMA, 7L, "x", new byte[] {1, 2});
        Row b = new Row(SCHEMA, 7L, "x", new byte[] {1, 2});
        assertThat(a).isEqualTo(b).hasSameHashCodeAs(b);
        assertThat(a.hashCode()).as("stable across JVMs: defined like Arrays.deepHashCode")
                .isEqualTo(Arrays.deepHashCode(new Object[] {7L, "x", new byte[] {1, 2}}));
    }

    @Test
    void anyDifferingValueOrNullMakesRowsUnequal() {
        Row a = new Row(SCHEMA, 7L, "x", null);
        assertThat(a).isNotEqualTo(new Row(SCHEMA, 8L, "x", null));
        assertThat(a).isNotEqualTo(new Row(SCHEMA, 7L, "y", null));
        assertThat(a).isNotEqualTo(new Row(SCHEMA, 7L, "x", new byte[0]));
        assertThat(a).isEqualTo(new Row(SCHEMA, 7L, "x", null));
        assertThat(new Row(SCHEMA, 7L, "x", new byte[] {1})).isNotEqualTo(new Row(SCHEMA, 7L, "x", new byte[] {2}));
    }
}
