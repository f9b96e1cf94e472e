package io.weir.runtime.tasks;

import io.weir.api.FieldType;
import io.weir.api.Row;
import io.weir.api.Schema;
import io.weir.core.storage.CheckpointStreamFactory;
import io.weir.core.checkpoint.KeyGroupsStateHandle;
import io.weir.core.state.AsyncSnapshot;
import io.weir.core.state.KeyHashVersion;
import io.weir.core.state.KeyGroupRange;
import io.weir.core.state.KeyedStateBackend;
import io.weir.runtime.io.network.KeySelector;
import io.weir.runtime.operators.DefaultOperatorContext;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** The current key {@link ChainedOperator} sets per record, with its reuse of recent key rows. */
class ChainedOperatorKeyTest {
    private static final int MAX_PARALLELISM = 128;
    private static final Schema INPUT = Schema.builder().field("key", FieldType.LONG).field("v", FieldType.LONG).build();
    private static final Schema KEY = Schema.builder().field("key", FieldType.LONG).build();

    /** The keys set, in order, with their key groups. */
    private final List<Row> keys = new ArrayList<>();
    private final List<Integer> keyGroups = new ArrayList<>();

    @ParameterizedTest
    @EnumSource(KeyHashVersion.class)
    void everyRecordGetsItsOwnKeyAndKeyGroupEvenWhenKeysShareAHash(KeyHashVersion version) throws Exception {
        ChainedOperator op = keyedOperator(version);
        // 0 and -1 hash alike (Long.hashCode), so they share a slot of the recent keys and their hash
        long[] input = {0, -1, 0, -1, 7, 0, 1L << 32, 1};

        for (long k : input) {
            op.process(new Row(INPUT, k, 100L));
        }

        assertThat(keys).extracting(r -> r.get(0)).containsExactly(0L, -1L, 0L, -1L, 7L, 0L, 1L << 32, 1L);
        for (int i = 0; i < input.length; i++) {
            assertThat(keys.get(i)).isEqualTo(new Row(KEY, input[i]));
            assertThat(keyGroups.get(i)).as("key group of key %d", input[i])
                    .isEqualTo(version.keyGroupFor(new Row(KEY, input[i]), MAX_PARALLELISM));
        }
    }

    @Test
    void aKeyThatRecursReusesItsKeyRow() throws Exception {
        ChainedOperator op = keyedOperator(KeyHashVersion.CURRENT);

        op.process(new Row(INPUT, 5L, 1L));
        op.process(new Row(INPUT, 6L, 2L));
        op.process(new Row(INPUT, 5L, 3L));

        assertThat(keys.get(2)).as("the second record of key 5 gets the first one's key row").isSameAs(keys.get(0));
        assertThat(keys.get(1)).isNotSameAs(keys.get(0));
    }

    @ParameterizedTest
    @EnumSource(KeyHashVersion.class)
    void nullKeysAreSetAndReusedLikeOthers(KeyHashVersion version) throws Exception {
        ChainedOperator op = keyedOperator(version);

        op.process(new Row(INPUT, null, 1L));
        op.process(new Row(INPUT, 0L, 2L));
        op.process(new Row(INPUT, null, 3L));

        assertThat(keys).extracting(r -> r.get(0)).containsExactly(null, 0L, null);
        assertThat(keyGroups.get(2)).isEqualTo(version.keyGroupFor(new Row(KEY, (Object) null), MAX_PARALLELISM));
    }

    /**
     * With a backend that accepts reused key rows, a key the recent keys do not hold is set through one reused row
     * (no row per record), and a slot takes a new key after {@value ChainedOperator#REPLACE_AFTER_MISSES} misses in a
     * row; every record still gets its own key's values and key group.
     */
    @ParameterizedTest
    @EnumSource(KeyHashVersion.class)
    void keysTheRecentKeysMissAreSetThroughOneReusedRowWithTheirOwnValues(KeyHashVersion version) throws Exception {
        List<Row> rowsSet = new ArrayList<>();
        ChainedOperator op = keyedOperator(version, new RecordingBackend(true) {
            @Override
            public void setCurrentKey(Row key, int keyGroup) {
                rowsSet.add(key);
                super.setCurrentKey(new Row(KEY, key.get(0)), keyGroup); // what the key holds when it is set
            }
        });
        java.util.Random random = new java.util.Random(7);
        long[] input = new long[20_000];
        for (int i = 0; i < input.length; i++) {
            input[i] = random.nextInt(100_000);
            op.process(new Row(INPUT, input[i], 1L));
        }

        for (int i = 0; i < input.length; i++) {
            assertThat(keys.get(i)).isEqualTo(new Row(KEY, input[i]));
            assertThat(keyGroups.get(i)).isEqualTo(version.keyGroupFor(new Row(KEY, input[i]), MAX_PARALLELISM));
        }
        long distinctRows = rowsSet.stream().map(System::identityHashCode).distinct().count();
        assertThat(distinctRows).as("key rows built for %d records of 100,000 keys", input.length)
                .isLessThan(input.length / ChainedOperator.REPLACE_AFTER_MISSES + ChainedOperator.RECENT_KEYS + 2)
                .isGreaterThan(ChainedOperator.RECENT_KEYS / 2); // slots still take new keys
    }

    @Test
    void aRecurringKeyStillReusesItsKeyRowWhenTheBackendAcceptsReusedRows() throws Exception {
        ChainedOperator op = keyedOperator(KeyHashVersion.CURRENT, new RecordingBackend(true));

        op.process(new Row(INPUT, 5L, 1L));
        op.process(new Row(INPUT, 6L, 2L));
        op.process(new Row(INPUT, 5L, 3L));

        assertThat(keys.get(2)).isSameAs(keys.get(0));
        assertThat(keys).extracting(r -> r.get(0)).containsExactly(5L, 6L, 5L);
    }

    /**
     * Input read into one reusable row, its longs held unboxed (as the record path decodes them): every record gets
     * its own key and key group, a recurring key its earlier key row, with either backend.
     */
    @ParameterizedTest
    @org.junit.jupiter.params.provider.CsvSource({"FLINK, false", "FLINK, true", "LEGACY, false", "LEGACY, true"})
    void keysOfRowsHoldingUnboxedLongsAreSetAndReusedAsBoxedOnes(KeyHashVersion version, boolean acceptsReused)
            throws Exception {
        List<Row> copies = new ArrayList<>();
        ChainedOperator op = keyedOperator(version, new RecordingBackend(acceptsReused) {
            @Override
            public void setCurrentKey(Row key, int keyGroup) {
                copies.add(new Row(KEY, key.values())); // a reused key row changes with the next record
                super.setCurrentKey(key, keyGroup);
            }
        });
        Row.Reusable input = new Row.Reusable(INPUT);
        long[] keysIn = {5, 6, 5, -1, 0, 1L << 40, 5};

        for (long k : keysIn) {
            op.process(input.setLong(0, k).setLong(1, 100L).row());
        }

        for (int i = 0; i < keysIn.length; i++) {
            assertThat(copies.get(i)).isEqualTo(new Row(KEY, keysIn[i]));
            assertThat(keyGroups.get(i)).isEqualTo(version.keyGroupFor(new Row(KEY, keysIn[i]), MAX_PARALLELISM));
        }
        assertThat(keys.get(2)).as("the second record of key 5 reuses the first one's key row").isSameAs(keys.get(0));
        assertThat(keys.get(6)).isSameAs(keys.get(0));
    }

    private ChainedOperator keyedOperator(KeyHashVersion version) {
        return keyedOperator(version, new RecordingBackend(false));
    }

    private ChainedOperator keyedOperator(KeyHashVersion version, KeyedStateBackend backend) {
        DefaultOperatorContext context = new DefaultOperatorContext("job", "op", 0, 1, false, null, backend);
        ChainedOperator op = new ChainedOperator("op", (row, out) -> { }, context, new KeySelector(INPUT, List.of("key"), version),
                MAX_PARALLELISM, 0, 0);
        op.output = row -> { };
        return op;
    }

    /** Records every current key; holds no state. */
    private class RecordingBackend implements KeyedStateBackend {
        private final boolean acceptsReusedKeyRows;
        private Row current;

        RecordingBackend(boolean acceptsReusedKeyRows) {
            this.acceptsReusedKeyRows = acceptsReusedKeyRows;
        }

        @Override
        public boolean acceptsReusedKeyRows() {
            return acceptsReusedKeyRows;
        }

        @Override
        public void setCurrentKey(Row key, int keyGroup) {
            keys.add(key);
            keyGroups.add(keyGroup);
            current = key;
        }

        @Override
        public Row currentKey() {
            return current;
        }

        @Override
        public KeyGroupRange keyGroupRange() {
            return new KeyGroupRange(0, MAX_PARALLELISM - 1);
        }

        @Override
        public <S> S getState(io.weir.api.state.StateDescriptor<S> descriptor) {
            throw new UnsupportedOperationException();
        }

        @Override
        public AsyncSnapshot<KeyGroupsStateHandle> snapshot(long checkpointId, CheckpointStreamFactory streams) {
            throw new UnsupportedOperationException();
        }

        @Override
        public void close() {
        }
    }
}
