package io.weir.core.state;

import io.weir.api.FieldType;
import io.weir.api.Row;
import io.weir.api.Schema;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.LongStream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Where each placement version puts keys. Every expected key group is a literal: computed outside Weir by a
 * Python transcription of Flink's {@code KeyGroupRangeAssignment.assignToKeyGroup} ({@code MathUtils.murmurHash(
 * key.hashCode()) % maxParallelism}, with Java's {@code Long/String/Double/Boolean.hashCode}) and of Weir's
 * formula before format version 7, for max parallelism 128.
 */
class KeyHashVersionTest {
    private static final int MAX = 128;
    private static final Schema LONG_KEY = Schema.builder().field("key", FieldType.LONG).build();

    private static Row key(Object... fields) {
        Schema.Builder b = Schema.builder();
        for (int i = 0; i < fields.length; i++) {
            FieldType type = fields[i] instanceof String ? FieldType.STRING : fields[i] instanceof Double ? FieldType.DOUBLE
                    : fields[i] instanceof Boolean ? FieldType.BOOLEAN : fields[i] instanceof byte[] ? FieldType.BYTES
                    : fields[i] instanceof Integer ? FieldType.INT : FieldType.LONG;
            b.field("f" + i, type);
        }
        return new Row(b.build(), fields);
    }

    private static List<Integer> keyGroupsOfLongKeys0To15(KeyHashVersion version) {
        List<Integer> groups = new ArrayList<>();
        LongStream.range(0, 16).forEach(k -> groups.add(version.keyGroupFor(new Row(LONG_KEY, k), MAX)));
        return groups;
    }

    @Test
    void flinkPlacesLongKeys0To15WhereFlinkDoes() {
        assertThat(keyGroupsOfLongKeys0To15(KeyHashVersion.FLINK))
                .containsExactly(94, 86, 127, 113, 7, 126, 18, 113, 15, 51, 67, 102, 50, 1, 27, 70);
    }

    @Test
    void legacyPlacesLongKeys0To15AsWeirAlwaysHas() {
        assertThat(keyGroupsOfLongKeys0To15(KeyHashVersion.LEGACY))
                .containsExactly(123, 35, 28, 124, 101, 29, 92, 51, 1, 20, 61, 28, 61, 9, 87, 86);
    }

    @Test
    void theBenchmarksSixteenKeysSplitSevenToNineOverTwoSubtasksWithFlinksPlacement() {
        int[] perSubtask = new int[2];
        for (int g : keyGroupsOfLongKeys0To15(KeyHashVersion.FLINK)) {
            perSubtask[KeyGroupAssignment.subtaskForKeyGroup(g, MAX, 2)]++;
        }
        assertThat(perSubtask).containsExactly(7, 9);
    }

    @Test
    void flinkHashesAOneFieldKeyAsTheFieldsOwnHashCode() {
        assertThat(KeyHashVersion.FLINK.keyHash(key("weir"))).isEqualTo("weir".hashCode());
        assertThat(KeyHashVersion.FLINK.keyGroupFor(key("a"), MAX)).isEqualTo(81);
        assertThat(KeyHashVersion.FLINK.keyGroupFor(key("weir"), MAX)).isEqualTo(4);
        assertThat(KeyHashVersion.FLINK.keyGroupFor(key(1.5), MAX)).isEqualTo(65);
        assertThat(KeyHashVersion.FLINK.keyGroupFor(key(true), MAX)).isEqualTo(77);
        assertThat(KeyHashVersion.FLINK.keyGroupFor(key(false), MAX)).isEqualTo(3);
        assertThat(KeyHashVersion.FLINK.keyGroupFor(key(-7), MAX)).as("INT -7").isEqualTo(33);
        assertThat(KeyHashVersion.FLINK.keyGroupFor(key(-7L), MAX)).as("LONG -7").isEqualTo(18);
        assertThat(KeyHashVersion.FLINK.keyGroupFor(key(1L << 40), MAX)).isEqualTo(54);
    }

    @Test
    void flinkHashesBytesByContentAndNullAsZero() {
        assertThat(KeyHashVersion.FLINK.keyGroupFor(key((Object) new byte[] {1, 2, 3}), MAX)).isEqualTo(97);
        assertThat(KeyHashVersion.FLINK.keyGroupFor(key((Object) new byte[] {1, 2, 3}), MAX))
                .as("equal contents, another array").isEqualTo(KeyHashVersion.FLINK.keyGroupFor(key((Object) new byte[] {1, 2, 3}), MAX));
        assertThat(KeyHashVersion.FLINK.keyGroupFor(new Row(LONG_KEY, (Object) null), MAX)).as("null as hash 0").isEqualTo(94);
    }

    @Test
    void aKeyOfSeveralFieldsKeepsTheRowHash() {
        Row twoFields = key(3L, "x");
        assertThat(KeyHashVersion.FLINK.keyHash(twoFields)).isEqualTo(twoFields.hashCode()).isEqualTo(31 * (31 + 3) + 'x');
        assertThat(KeyHashVersion.FLINK.keyGroupFor(twoFields, MAX)).isEqualTo(65);
    }

    @Test
    void aNegativeMixIsMadeNonNegativeDifferently() {
        // key 1: hashCode 1, murmur mix -68075478 (negative): Flink takes 68075478 % 128 = 86
        assertThat(KeyHashVersion.FLINK.keyGroupForHash(1, MAX)).isEqualTo(86);
        // the same mix as LEGACY makes it non-negative: 68075477 % 128 = 85
        assertThat(KeyHashVersion.LEGACY.keyGroupForHash(1, MAX)).isEqualTo(85);
    }

    @Test
    void everyKeyGroupIsInRangeForAnyHash() {
        for (KeyHashVersion v : KeyHashVersion.values()) {
            for (int h : new int[] {0, 1, -1, Integer.MIN_VALUE, Integer.MAX_VALUE, 123456789, -987654321}) {
                assertThat(v.keyGroupForHash(h, 7)).isBetween(0, 6);
                assertThat(v.keyGroupForHash(h, 1)).isZero();
            }
        }
    }

    @Test
    void idsAreStableAndUnknownIdsAreRejected() {
        assertThat(KeyHashVersion.LEGACY.id()).isEqualTo(1);
        assertThat(KeyHashVersion.FLINK.id()).isEqualTo(2);
        assertThat(KeyHashVersion.ofId(1)).isEqualTo(KeyHashVersion.LEGACY);
        assertThat(KeyHashVersion.ofId(2)).isEqualTo(KeyHashVersion.FLINK);
        assertThat(KeyHashVersion.CURRENT).isEqualTo(KeyHashVersion.FLINK);
        assertThatThrownBy(() -> KeyHashVersion.ofId(3)).hasMessageContaining("unknown key hash version 3");
    }
}
