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

    @Test
    void aReusableRowIsOneRowWhoseOverwrittenValuesEqualsAndHashCodeSee() {
        Row.Reusable reusable = new Row.Reusable(SCHEMA);
        Row first = reusable.set(0, 7L).set(1, "x").set(2, new byte[] {1}).row();
        int firstHash = first.hashCode();

        Row second = reusable.set(0, 8L).set(1, null).row();

        assertThat(second).isSameAs(first);
        assertThat(firstHash).isEqualTo(new Row(SCHEMA, 7L, "x", new byte[] {1}).hashCode());
        assertThat(second).as("the hash cached before the values were overwritten is not kept")
                .isEqualTo(new Row(SCHEMA, 8L, null, new byte[] {1}))
                .hasSameHashCodeAs(new Row(SCHEMA, 8L, null, new byte[] {1}));
    }

    @Test
    void aReusableRowStartsWithNullValues() {
        assertThat(new Row.Reusable(SCHEMA).row()).isEqualTo(new Row(SCHEMA, null, null, null));
    }
}
