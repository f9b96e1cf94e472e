package io.weir.state.heap.keyed;

import io.weir.api.FieldType;
import io.weir.api.Row;
import io.weir.api.RowSerializer;
import io.weir.api.Schema;
import io.weir.api.serialization.Serializers;
import io.weir.api.state.StateDescriptor;
import io.weir.api.state.ValueState;
import io.weir.core.state.InternalTimer;
import io.weir.core.state.KeyGroupRange;
import io.weir.core.state.KeyHashVersion;
import io.weir.core.state.KeyedStateBackend;
import io.weir.core.state.KeyedStateBackendParameters;
import io.weir.core.state.KeyedTimerQueue;
import io.weir.state.heap.HeapStateBackend;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The heap backend given one key row that its caller overwrites per record ({@link KeyedStateBackend#acceptsReusedKeyRows()},
 * as the runtime does for keys it has no row for): it recognizes the current key by the call, not by the row, and
 * keeps copies wherever it keeps the key. For keys compared by their long value and for string keys, whose lookups
 * compare the stored key rows.
 */
class ReusedKeyRowTest {
    private static final int MAX_PARALLELISM = 128;
    private static final Schema LONG_KEY = Schema.builder().field("id", FieldType.LONG).build();
    private static final Schema STRING_KEY = Schema.builder().field("id", FieldType.STRING).build();

    private KeyedStateBackend backend;
    private Row.Reusable reused;
    private boolean strings;

    private void create(boolean stringKeys) throws Exception {
        strings = stringKeys;
        Schema schema = stringKeys ? STRING_KEY : LONG_KEY;
        backend = new HeapStateBackend().createKeyedStateBackend(new KeyedStateBackendParameters("job", "op", 0,
                MAX_PARALLELISM, new KeyGroupRange(0, MAX_PARALLELISM - 1), new RowSerializer(schema), List.of()));
        reused = new Row.Reusable(schema);
        assertThat(backend.acceptsReusedKeyRows()).isTrue();
    }

    private Object field(long id) {
        return strings ? "key-" + id : id;
    }

    /** A new row of key {@code id}, nobody else's. */
    private Row fresh(long id) {
        return new Row(strings ? STRING_KEY : LONG_KEY, field(id));
    }

    /** Makes {@code id} current through the one reused row. */
    private void setReused(long id) {
        Row row = reused.set(0, field(id)).row();
        backend.setCurrentKey(row, KeyHashVersion.LEGACY.keyGroupFor(row, MAX_PARALLELISM));
    }

    private void setFresh(long id) {
        Row row = fresh(id);
        backend.setCurrentKey(row, KeyHashVersion.LEGACY.keyGroupFor(row, MAX_PARALLELISM));
    }

    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void readModifyWritesThroughOneReusedRowKeepEveryKeysCount(boolean stringKeys) throws Exception {
        create(stringKeys);
        ValueState<Long> counts = backend.getState(new StateDescriptor.Value<>("count", Serializers.LONG));
        Map<Long, Long> model = new HashMap<>();
        Random random = new Random(13);
        for (int i = 0; i < 20_000; i++) {
            long id = random.nextInt(2_000);
            setReused(id);
            Long c = counts.value();
            counts.update(c == null ? 1 : c + 1);
            model.merge(id, 1L, Long::sum);
        }
        reused.set(0, field(-1)); // what the row holds after the last record must not matter

        for (long id = 0; id < 2_000; id++) {
            setFresh(id);
            assertThat(counts.value()).as("count of key %d", id).isEqualTo(model.get(id));
        }
    }

    /**
     * A slot remembered by a read of one key is not written by a later key's update: before the heap backend
     * recognized the current key by the call, the same row object made the update of key B land on key A.
     */
    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void anUpdateOfTheNextKeyInTheSameKeyGroupDoesNotLandOnTheKeyReadBefore(boolean stringKeys) throws Exception {
        create(stringKeys);
        long a = 0;
        long b = 1;
        int group = KeyHashVersion.LEGACY.keyGroupFor(fresh(a), MAX_PARALLELISM);
        while (KeyHashVersion.LEGACY.keyGroupFor(fresh(b), MAX_PARALLELISM) != group) {
            b++;
        }
        ValueState<Long> values = backend.getState(new StateDescriptor.Value<>("v", Serializers.LONG));
        setReused(a);
        values.update(1L);
        setReused(b);
        values.update(2L);

        setReused(a);
        assertThat(values.value()).isEqualTo(1L);
        setReused(b);
        values.update(20L); // an update without a read, after a read of a

        setFresh(a);
        assertThat(values.value()).as("key %d", a).isEqualTo(1L);
        setFresh(b);
        assertThat(values.value()).as("key %d", b).isEqualTo(20L);
    }

    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void timersAndTheCurrentKeyHandedOutKeepTheirKeyWhenTheRowIsOverwritten(boolean stringKeys) throws Exception {
        create(stringKeys);
        KeyedTimerQueue timers = backend.timerQueue("_timers/event");
        List<Row> handedOut = new ArrayList<>();
        for (long id = 0; id < 300; id++) {
            setReused(id);
            timers.add(1_000 + id);
            handedOut.add(backend.currentKey());
        }
        reused.set(0, field(-1));

        for (long id = 0; id < 300; id++) {
            assertThat(handedOut.get((int) id)).isEqualTo(fresh(id));
            InternalTimer t = timers.poll(Long.MAX_VALUE);
            assertThat(t.timestamp()).isEqualTo(1_000 + id);
            assertThat(t.key()).as("key of the timer at %d", t.timestamp()).isEqualTo(fresh(id));
        }
        assertThat(timers.size()).isZero();
    }
}
