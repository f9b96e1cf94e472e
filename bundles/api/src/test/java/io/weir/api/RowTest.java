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

    @Test
    void aLongHeldUnboxedReadsEqualsHashesAndCopiesAsTheSameLongBoxed() {
        Row.Reusable reusable = new Row.Reusable(SCHEMA);
        Row unboxed = reusable.setLong(0, -5_000_000_000L).set(1, "x").row();
        Row boxed = new Row(SCHEMA, -5_000_000_000L, "x", null);

        assertThat(unboxed.getLong(0)).isEqualTo(-5_000_000_000L);
        assertThat(unboxed.getDouble(0)).isEqualTo(-5.0e9);
        assertThat(unboxed.isNull(0)).isFalse();
        assertThat(unboxed.isNull(2)).isTrue();
        assertThat(unboxed.hashOf(0)).isEqualTo(Long.valueOf(-5_000_000_000L).hashCode());
        assertThat(unboxed).isEqualTo(boxed).hasSameHashCodeAs(boxed);
        assertThat(boxed).isEqualTo(unboxed);
        assertThat(unboxed.fieldEquals(0, boxed, 0)).isTrue();
        assertThat(boxed.fieldEquals(0, unboxed, 0)).isTrue();
        assertThat(unboxed.fieldEquals(0, new Row(SCHEMA, -5L, "x", null), 0)).isFalse();
        assertThat(unboxed.values()).containsExactly(-5_000_000_000L, "x", null);
        assertThat(unboxed.project(new int[] {1, 0}, SCHEMA.project(java.util.List.of("s", "k"))))
                .isEqualTo(new Row(SCHEMA.project(java.util.List.of("s", "k")), "x", -5_000_000_000L));
        assertThat(unboxed.with(1, "y")).isEqualTo(new Row(SCHEMA, -5_000_000_000L, "y", null));
        assertThat(unboxed.toString()).isEqualTo(boxed.toString());

        Object first = unboxed.get(0);
        assertThat(first).isEqualTo(-5_000_000_000L);
        assertThat(unboxed.get(0)).as("boxed once, then kept").isSameAs(first);
        assertThat(unboxed.get("k")).isSameAs(first);
        assertThat(unboxed.getLong(0)).isEqualTo(-5_000_000_000L);
    }

    @Test
    void setFromCopiesAValueUnboxedOrBoxedAsTheSourceHoldsIt() {
        Row.Reusable source = new Row.Reusable(SCHEMA);
        Row.Reusable target = new Row.Reusable(SCHEMA);
        source.setLong(0, 9L).set(1, "s").set(2, new byte[] {3});

        Row copied = target.setFrom(0, source.row(), 0).setFrom(1, source.row(), 1).setFrom(2, source.row(), 2).row();
        source.setLong(0, 10L);

        assertThat(copied).as("the unboxed long was copied, not shared").isEqualTo(new Row(SCHEMA, 9L, "s", new byte[] {3}));
        assertThat(target.set(0, null).row().isNull(0)).as("set overwrites an unboxed value").isTrue();
        assertThat(target.setLong(0, 1L).set(0, 2L).row().getLong(0)).isEqualTo(2L);
    }

    @Test
    void distinctUnboxedLongsAndAnUnboxedLongAgainstNullOrAnotherTypeAreUnequal() {
        Schema two = Schema.builder().field("a", FieldType.LONG).field("b", FieldType.LONG).build();
        Row.Reusable x = new Row.Reusable(two);
        Row.Reusable y = new Row.Reusable(two);
        x.setLong(0, 1L).setLong(1, 2L);
        y.setLong(0, 1L).setLong(1, 3L);
        assertThat(x.row()).isNotEqualTo(y.row());
        assertThat(x.row().fieldEquals(0, y.row(), 0)).isTrue();
        assertThat(x.row().fieldEquals(1, y.row(), 1)).isFalse();
        assertThat(x.row().fieldEquals(1, new Row(two, 2, null), 0)).as("an Integer 2 is not the long 2, as in Long.equals")
                .isFalse();
        assertThat(x.row().fieldEquals(1, new Row(two, null, null), 0)).isFalse();
        assertThat(new Row(two, null, null).fieldEquals(0, x.row(), 1)).isFalse();
        assertThat(new Row(two, null, null).fieldEquals(0, new Row(two, null, null), 1)).isTrue();
    }

    @Test
    void getLongWidensAnIntAndRejectsOtherTypes() {
        Schema mixed = Schema.builder().field("i", FieldType.INT).field("s", FieldType.STRING).build();
        Row row = new Row(mixed, 7, "x");
        assertThat(row.getLong(0)).isEqualTo(7L);
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> row.getLong(1)).isInstanceOf(ClassCastException.class);
    }
}
