package io.weir.ha.hazelcast.checkpoint;

import org.junit.jupiter.api.Test;

import java.util.AbstractMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** The entry processors' rules on a plain map entry (no cluster): maximum kept, older epochs refused. */
class FencedProcessorsTest {

    private static <V> Map.Entry<String, V> entry(V value) {
        return new AbstractMap.SimpleEntry<>("job", value);
    }

    @Test
    void incrementOnAnAbsentEntryHandsOutOneAndStampsTheEpoch() {
        Map.Entry<String, CounterState> e = entry(null);
        CounterProcessor.Result r = new CounterProcessor(CounterProcessor.Op.INCREMENT, 3, 0).process(e);
        assertThat(r.refused()).isFalse();
        assertThat(r.value()).isEqualTo(1);
        assertThat(e.getValue()).isEqualTo(new CounterState(2, 3));
    }

    @Test
    void raiseNeverLowersTheCounter() {
        Map.Entry<String, CounterState> e = entry(new CounterState(10, 1));
        assertThat(new CounterProcessor(CounterProcessor.Op.RAISE, 1, 4).process(e).value()).isEqualTo(10);
        assertThat(new CounterProcessor(CounterProcessor.Op.RAISE, 2, 17).process(e).value()).isEqualTo(17);
        assertThat(e.getValue()).isEqualTo(new CounterState(17, 2));
    }

    @Test
    void anOlderEpochIsRefusedAndChangesNothing() {
        Map.Entry<String, CounterState> e = entry(new CounterState(10, 5));
        CounterProcessor.Result r = new CounterProcessor(CounterProcessor.Op.INCREMENT, 4, 0).process(e);
        assertThat(r.refused()).isTrue();
        assertThat(r.storedEpoch()).isEqualTo(5);
        assertThat(e.getValue()).isEqualTo(new CounterState(10, 5));
        assertThat(new CounterProcessor(CounterProcessor.Op.REMOVE, 4, 0).process(e).refused()).isTrue();
        assertThat(e.getValue()).isNotNull();
    }

    @Test
    void removeIsIdempotent() {
        Map.Entry<String, CounterState> e = entry(new CounterState(10, 5));
        assertThat(new CounterProcessor(CounterProcessor.Op.REMOVE, 5, 0).process(e).refused()).isFalse();
        assertThat(e.getValue()).isNull();
        assertThat(new CounterProcessor(CounterProcessor.Op.REMOVE, 5, 0).process(e).refused()).isFalse();
        assertThat(e.getValue()).isNull();
    }

    @Test
    void storeAddSubsumesTheOldestBeyondTheRetainedCount() {
        Map.Entry<String, StoreState> e = entry(null);
        for (long id = 1; id <= 3; id++) {
            StoreProcessor.Result r = new StoreProcessor(StoreProcessor.Op.ADD, 1, cp(id), 2).process(e);
            assertThat(r.refused()).isFalse();
            assertThat(r.subsumed()).isEqualTo(id == 3 ? List.of(cp(1)) : List.of());
        }
        assertThat(e.getValue()).isEqualTo(new StoreState(1, List.of(cp(2), cp(3))));
    }

    @Test
    void storeRefusesAnOlderEpochAndANonIncreasingId() {
        Map.Entry<String, StoreState> e = entry(new StoreState(2, List.of(cp(5))));
        StoreProcessor.Result zombie = new StoreProcessor(StoreProcessor.Op.ADD, 1, cp(6), 2).process(e);
        assertThat(zombie.refused()).isTrue();
        assertThat(zombie.storedEpoch()).isEqualTo(2);
        StoreProcessor.Result stale = new StoreProcessor(StoreProcessor.Op.ADD, 2, cp(5), 2).process(e);
        assertThat(stale.notNewer()).isTrue();
        assertThat(e.getValue()).isEqualTo(new StoreState(2, List.of(cp(5))));
    }

    @Test
    void claimRaisesTheStoredEpochSoTheFormerOwnerIsRefused() {
        Map.Entry<String, StoreState> e = entry(new StoreState(1, List.of(cp(5))));
        assertThat(new StoreProcessor(StoreProcessor.Op.CLAIM, 2, null, 0).process(e).refused()).isFalse();
        assertThat(new StoreProcessor(StoreProcessor.Op.ADD, 1, cp(6), 2).process(e).refused()).isTrue();
        assertThat(e.getValue()).isEqualTo(new StoreState(2, List.of(cp(5))));
    }

    private static StoredCheckpoint cp(long id) {
        return new StoredCheckpoint(id, "/chk/job/chk-" + id, 100 + id, 200 + id);
    }
}
