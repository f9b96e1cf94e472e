package io.weir.state.heap.keyed;

import io.weir.api.FieldType;
import io.weir.api.Row;
import io.weir.api.Schema;
import org.junit.jupiter.api.Test;

import java.util.HashMap;
import java.util.Map;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link KeyGroupMap} against {@link HashMap} as the model: random puts, removes (which shift probe runs back),
 * growth, copies (a copy never sees later changes of the original and vice versa), for integral keys (compared
 * by their long value, with the null key kept aside) and generic keys (string rows whose hashes collide).
 */
class KeyGroupMapTest {
    private static final Schema LONG_KEY = Schema.builder().field("k", FieldType.LONG).build();
    private static final Schema STRING_KEY = Schema.builder().field("k", FieldType.STRING).build();

    @Test
    void integralKeysBehaveLikeAHashMapUnderRandomPutsRemovesAndCopies() {
        runAgainstModel(true, i -> new Row(LONG_KEY, i == 7 ? null : (long) i * 1_000_003L));
    }

    @Test
    void genericKeysWithCollidingHashesBehaveLikeAHashMap() {
        // "Aa" and "BB" have the same String hash, so rows of their concatenations collide in pairs
        runAgainstModel(false, i -> new Row(STRING_KEY, Integer.toBinaryString(i).replace("0", "Aa").replace("1", "BB")));
    }

    @Test
    void aSlotFoundBeforeACopyStillHoldsTheKeyInTheCopy() {
        KeyGroupMap<String> map = new KeyGroupMap<>(true);
        for (long k = 0; k < 100; k++) {
            put(map, row(k), "v" + k, 0);
        }
        int slot = map.find(row(42), row(42).hashCode());
        KeyGroupMap<String> copy = map.copy();
        copy.setValueAt(slot, "changed", 1);

        assertThat(copy.get(row(42), row(42).hashCode())).isEqualTo("changed");
        assertThat(map.get(row(42), row(42).hashCode())).isEqualTo("v42");
    }

    @Test
    void anIntegralKeyIsFoundByValueNotByRowIdentityOrBoxing() {
        Schema intKey = Schema.builder().field("k", FieldType.INT).build();
        KeyGroupMap<String> map = new KeyGroupMap<>(true);
        Row stored = new Row(intKey, 100_000);
        put(map, stored, "x", 0);
        Row lookedUp = new Row(intKey, Integer.valueOf(100_000)); // a distinct Integer object (outside the cache)

        assertThat(map.get(lookedUp, lookedUp.hashCode())).isEqualTo("x");
        assertThat(map.get(new Row(intKey, 100_001), new Row(intKey, 100_001).hashCode())).isNull();
    }

    @Test
    void anUpdateAfterASnapshotThroughTheSlotFoundBeforeItLeavesTheCapturedValueAlone() {
        KeyContext ctx = new KeyContext(true);
        StateTable<String> table = new StateTable<>(ctx, 4);
        ctx.key = row(5);
        ctx.keyGroupIndex = 2;
        table.put("before");
        assertThat(table.get()).isEqualTo("before"); // remembers the slot
        KeyGroupMap<String>[] captured = table.capture();
        ctx.epoch++;
        ctx.snapshots.start(ctx.epoch);
        table.put("after"); // same key row object: writes through the remembered slot, into a copy

        assertThat(captured[2].get(row(5), row(5).hashCode())).isEqualTo("before");
        assertThat(table.get()).isEqualTo("after");
    }

    private static Row row(long k) {
        return new Row(LONG_KEY, k);
    }

    /** Sets {@code key}'s value as {@code StateTable.setAt} does: replaced where found, else inserted; @return inserted */
    private static <V> boolean put(KeyGroupMap<V> map, Row key, V value, long version) {
        int slot = map.find(key, key.hashCode());
        if (slot != -1) {
            map.setValueAt(slot, value, version);
            return false;
        }
        map.insert(key, key.hashCode(), value, version);
        return true;
    }

    @Test
    void aTableGrowsWhenAnInsertWouldFillMoreThanThirteenSixteenthsOfIt() {
        KeyGroupMap<String> map = new KeyGroupMap<>(true);
        assertThat(map.capacity()).isEqualTo(8);
        for (long k = 0; k < 2_000; k++) {
            int before = map.capacity();
            put(map, row(k), "v", 0);
            int full = (int) k + 1;
            if (map.capacity() != before) {
                assertThat(map.capacity()).as("grown at %d entries", full).isEqualTo(2 * before);
                assertThat(full).as("grown at %d entries from %d slots", full, before)
                        .isEqualTo(before == 8 ? 8 : before * 13 / 16 + 1);
            }
            assertThat(full).isLessThanOrEqualTo(map.capacity() * 13 / 16 + (map.capacity() == 8 ? 1 : 0));
        }
        assertThat(map.capacity()).as("2,000 keys: 1,664 fit 2,048 slots").isEqualTo(4096);
    }

    private static void runAgainstModel(boolean integral, java.util.function.IntFunction<Row> keyOf) {
        Random random = new Random(20261201L);
        KeyGroupMap<Integer> map = new KeyGroupMap<>(integral);
        Map<Row, Integer> model = new HashMap<>();
        KeyGroupMap<Integer> snapshot = null;
        Map<Row, Integer> snapshotModel = null;
        long snapshotVersion = -1;
        for (int step = 0; step < 20_000; step++) {
            Row key = keyOf.apply(random.nextInt(300));
            int op = random.nextInt(10);
            long version = step / VERSION_STEPS;
            if (op < 6) {
                boolean inserted = put(map, key, step, version);
                assertThat(inserted).as("put of %s inserted", key).isEqualTo(!model.containsKey(key));
                model.put(key, step);
            } else if (op < 9) {
                assertThat(map.remove(key, key.hashCode())).as("remove of %s", key).isEqualTo(model.remove(key) != null);
            } else {
                snapshot = map.copy();
                snapshotModel = new HashMap<>(model);
                snapshotVersion = version;
            }
            assertThat(map.size()).isEqualTo(model.size());
            assertThat(map.get(key, key.hashCode())).isEqualTo(model.get(key));
            assertStoredIn(map, model, version); // every entry, after moves, rehashes and removals
        }
        assertSameEntries(map, model, integral);
        assertThat(snapshot).isNotNull();
        assertSameEntries(snapshot, snapshotModel, integral);
        assertStoredIn(snapshot, snapshotModel, snapshotVersion);
    }

    /** Steps of {@link #runAgainstModel} per state version: a value stored at step s is stored in version s / 64. */
    private static final int VERSION_STEPS = 64;

    /** Asserts that exactly the entries stored in {@code version} (model value / VERSION_STEPS) say so. */
    private static void assertStoredIn(KeyGroupMap<Integer> map, Map<Row, Integer> model, long version) {
        for (Map.Entry<Row, Integer> e : model.entrySet()) {
            int slot = map.find(e.getKey(), e.getKey().hashCode());
            assertThat(map.storedIn(slot, version)).as("%s stored at step %d, in version %d", e.getKey(), e.getValue(),
                    version).isEqualTo(e.getValue() / VERSION_STEPS == version);
        }
    }

    private static void assertSameEntries(KeyGroupMap<Integer> map, Map<Row, Integer> model, boolean integral) {
        Map<Row, Integer> seen = new HashMap<>();
        map.forEach((key, value) -> assertThat(seen.put(key, value)).as("key %s listed twice", key).isNull());
        assertThat(seen).isEqualTo(model);
        if (integral) {
            Map<Row, Integer> byLongKey = new HashMap<>();
            map.forEachIntegral((key, value) -> assertThat(byLongKey.put(new Row(LONG_KEY, key), value)).isNull(),
                    (key, value) -> assertThat(byLongKey.put(key, value)).as("the null key").isNull());
            assertThat(byLongKey).isEqualTo(model);
        }
        for (Map.Entry<Row, Integer> e : model.entrySet()) {
            assertThat(map.get(e.getKey(), e.getKey().hashCode())).isEqualTo(e.getValue());
        }
    }
}
