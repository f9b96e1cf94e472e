package io.weir.runtime.io.network;

import io.weir.api.FieldType;
import io.weir.api.Row;
import io.weir.api.Schema;
import io.weir.core.state.KeyHashVersion;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link KeySelector#hash} is the placement hash of the key row it does not build, for either placement version:
 * producer (channel selector, on the whole row) and consumer (keyed state) must agree on every key group.
 */
class KeySelectorHashTest {
    private static final Schema ROWS = Schema.builder().field("id", FieldType.LONG).field("name", FieldType.STRING)
            .field("blob", FieldType.BYTES).field("n", FieldType.INT).build();
    private static final List<Row> SAMPLES = List.of(
            new Row(ROWS, 0L, "a", new byte[] {1, 2}, 7),
            new Row(ROWS, -1L, "weir", new byte[0], -7),
            new Row(ROWS, 1L << 40, null, null, null),
            new Row(ROWS, null, "", new byte[] {-1}, Integer.MIN_VALUE));

    @ParameterizedTest
    @EnumSource(KeyHashVersion.class)
    void hashOfARowIsThePlacementHashOfItsKeyRow(KeyHashVersion version) {
        for (List<String> keys : List.of(List.of("id"), List.of("name"), List.of("blob"), List.of("n"), List.of("id", "name"),
                List.of("n", "blob", "id"))) {
            KeySelector selector = new KeySelector(ROWS, keys, version);
            for (Row row : SAMPLES) {
                assertThat(selector.hash(row)).as("%s of %s", keys, row).isEqualTo(version.keyHash(selector.key(row)));
            }
        }
    }

    @ParameterizedTest
    @EnumSource(KeyHashVersion.class)
    void aRowHoldingItsLongUnboxedHashesAsTheSameRowBoxed(KeyHashVersion version) {
        for (List<String> keys : List.of(List.of("id"), List.of("id", "name"), List.of("n", "id"))) {
            KeySelector selector = new KeySelector(ROWS, keys, version);
            for (Row boxed : SAMPLES) {
                Row.Reusable reusable = new Row.Reusable(ROWS);
                for (int i = 0; i < ROWS.size(); i++) {
                    reusable.set(i, boxed.get(i));
                }
                if (!boxed.isNull(0)) {
                    reusable.setLong(0, boxed.getLong(0));
                }
                assertThat(selector.hash(reusable.row())).as("%s of %s", keys, boxed).isEqualTo(selector.hash(boxed));
            }
        }
    }

    @ParameterizedTest
    @EnumSource(KeyHashVersion.class)
    void aOneFieldKeyHashesAsFlinkOnlyWithTheFlinkPlacement(KeyHashVersion version) {
        KeySelector selector = new KeySelector(ROWS, List.of("id"), version);
        Row row = new Row(ROWS, 5L, "x", null, 1);
        // Long.hashCode(5) = 5; the row hash of a one-field key is 31 * 1 + 5 = 36
        assertThat(selector.hash(row)).isEqualTo(version == KeyHashVersion.FLINK ? 5 : 36);
    }
}
