package io.weir.state.rocksdb;

import io.weir.api.serialization.Serializers;
import io.weir.api.state.StateDescriptor;
import io.weir.core.checkpoint.KeyGroupsStateHandle;
import io.weir.core.config.Configuration;
import io.weir.core.state.InternalTimer;
import io.weir.core.state.KeyGroupRange;
import io.weir.core.state.KeyedStateBackend;
import io.weir.core.state.KeyedTimerQueue;
import io.weir.core.state.StateBackend;
import io.weir.state.heap.HeapStateBackend;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;

import static io.weir.state.rocksdb.RocksDBKeyedStateBackendTest.MAX_PARALLELISM;
import static io.weir.state.rocksdb.RocksDBKeyedStateBackendTest.key;
import static io.weir.state.rocksdb.RocksDBKeyedStateBackendTest.keyGroup;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Timers on the RocksDB backend ({@link RocksTimerQueue}): firing order, deduplication, deletion, the head cache
 * against a model, and timers in full (canonical) and incremental snapshots, across backends and parallelisms.
 */
class RocksTimerQueueTest {
    private static final KeyGroupRange ALL = new KeyGroupRange(0, MAX_PARALLELISM - 1);
    private static final String EVENT = "_timers/event";

    @TempDir
    Path local;

    private final List<KeyedStateBackend> open = new ArrayList<>();

    @AfterEach
    void closeAll() {
        open.forEach(KeyedStateBackend::close);
    }

    private KeyedStateBackend create(StateBackend type, KeyGroupRange range, List<KeyGroupsStateHandle> restore,
            boolean incremental) throws Exception {
        KeyedStateBackend b = TestBackends.create(type, local, range, restore,
                Configuration.empty().with("state.backend.incremental", incremental));
        open.add(b);
        return b;
    }

    private KeyedStateBackend rocks(KeyGroupRange range, List<KeyGroupsStateHandle> restore) throws Exception {
        return create(new RocksDBStateBackend(), range, restore, true);
    }

    private static void setKey(KeyedStateBackend b, long id) {
        b.setCurrentKey(key(id), keyGroup(id));
    }

    /** @return "id@timestamp" of every timer up to {@code max}, in firing order */
    private static List<String> drain(KeyedTimerQueue q, long max) {
        List<String> fired = new ArrayList<>();
        InternalTimer t;
        long last = Long.MIN_VALUE;
        while ((t = q.poll(max)) != null) {
            assertThat(t.timestamp()).as("firing order").isGreaterThanOrEqualTo(last);
            assertThat(t.keyGroup()).isEqualTo(keyGroup((Long) t.key().get(1)));
            last = t.timestamp();
            fired.add(t.key().get(1) + "@" + t.timestamp());
        }
        return fired;
    }

    @Test
    void timersFireInTimestampOrderOncePerKeyAndTimestamp() throws Exception {
        KeyedStateBackend b = rocks(ALL, List.of());
        KeyedTimerQueue q = b.timerQueue(EVENT);
        setKey(b, 1);
        assertThat(q.add(30)).isTrue();
        assertThat(q.add(10)).isTrue();
        assertThat(q.add(10)).isFalse();
        assertThat(q.add(-5)).isTrue(); // negative timestamps sort before positive ones
        setKey(b, 2);
        assertThat(q.add(20)).isTrue();
        assertThat(q.add(10)).isTrue();
        assertThat(q.add(Long.MAX_VALUE)).isTrue();
        assertThat(q.size()).isEqualTo(6);
        assertThat(q.peekTimestamp()).isEqualTo(-5);

        assertThat(q.poll(-6)).isNull();
        assertThat(drain(q, -5)).containsExactly("1@-5");
        assertThat(new TreeSet<>(drain(q, 10))).containsExactly("1@10", "2@10");
        assertThat(drain(q, 100)).containsExactly("2@20", "1@30");
        assertThat(q.peekTimestamp()).isEqualTo(Long.MAX_VALUE);
        assertThat(drain(q, Long.MAX_VALUE)).containsExactly("2@" + Long.MAX_VALUE);
        assertThat(q.size()).isZero();
        assertThat(q.poll(Long.MAX_VALUE)).isNull();
    }

    @Test
    void deletedTimerDoesNotFire() throws Exception {
        KeyedStateBackend b = rocks(ALL, List.of());
        KeyedTimerQueue q = b.timerQueue(EVENT);
        setKey(b, 7);
        q.add(5);
        q.add(6);
        assertThat(q.delete(5)).isTrue();
        assertThat(q.delete(5)).isFalse();
        assertThat(q.peekTimestamp()).isEqualTo(6);
        q.delete(6);
        q.add(6);
        assertThat(q.size()).isEqualTo(1);
        assertThat(drain(q, Long.MAX_VALUE)).containsExactly("7@6");
    }

    /**
     * Random adds, deletes and polls over few keys (so key groups hold far more timers than the head cache) against
     * a sorted set: every answer of the queue equals the model's.
     */
    @Test
    void randomOperationsMatchASortedSetBeyondTheHeadCache() throws Exception {
        KeyedStateBackend b = rocks(ALL, List.of());
        KeyedTimerQueue q = b.timerQueue(EVENT);
        TreeSet<long[]> model = new TreeSet<>((x, y) -> x[0] != y[0] ? Long.compare(x[0], y[0]) : Long.compare(x[1], y[1]));
        Random random = new Random(42);
        for (int step = 0; step < 20_000; step++) {
            int op = random.nextInt(10);
            long id = random.nextInt(6);
            long ts = random.nextInt(3_000);
            if (op < 6) {
                setKey(b, id);
                assertThat(q.add(ts)).as("add %d@%d at step %d", id, ts, step).isEqualTo(model.add(new long[] {ts, id}));
            } else if (op < 8) {
                setKey(b, id);
                assertThat(q.delete(ts)).as("delete %d@%d at step %d", id, ts, step).isEqualTo(model.remove(new long[] {ts, id}));
            } else {
                long max = model.isEmpty() ? ts : model.first()[0] + random.nextInt(3);
                InternalTimer t = q.poll(max);
                long[] expected = model.isEmpty() || model.first()[0] > max ? null : model.first();
                if (expected == null) {
                    assertThat(t).as("poll(%d) at step %d", max, step).isNull();
                } else {
                    assertThat(t).as("poll(%d) at step %d", max, step).isNotNull();
                    assertThat(t.timestamp()).isEqualTo(expected[0]);
                    assertThat(model.remove(new long[] {t.timestamp(), (Long) t.key().get(1)})).isTrue();
                }
            }
            assertThat(q.size()).isEqualTo(model.size());
            assertThat(q.peekTimestamp()).isEqualTo(model.isEmpty() ? Long.MAX_VALUE : model.first()[0]);
        }
        assertThat(model.size()).as("the model grew beyond the cache of one key group").isGreaterThan(RocksTimerQueue.CACHE_CAPACITY);
    }

    /** 200 keys with two timers each; returns "id@ts" of the timers in key groups below 64 and from 64. */
    private static List<Set<String>> addTimers(KeyedStateBackend b) {
        KeyedTimerQueue q = b.timerQueue(EVENT);
        Set<String> low = new TreeSet<>();
        Set<String> high = new TreeSet<>();
        for (long id = 0; id < 200; id++) {
            setKey(b, id);
            q.add(1000 + id);
            q.add(5000);
            Set<String> expected = keyGroup(id) < 64 ? low : high;
            expected.add(id + "@" + (1000 + id));
            expected.add(id + "@5000");
        }
        assertThat(low).isNotEmpty();
        assertThat(high).isNotEmpty();
        return List.of(low, high);
    }

    private static void changeAfterSnapshot(KeyedStateBackend b) {
        setKey(b, 3);
        b.timerQueue(EVENT).add(1);
        drain(b.timerQueue(EVENT), 2000);
    }

    @Test
    void savepointTimersRestoreOnTheHeapBackendAndBackWithRescaling() throws Exception {
        KeyedStateBackend b = rocks(ALL, List.of());
        List<Set<String>> expected = addTimers(b);
        KeyGroupsStateHandle savepoint = b.snapshot(1, new MemoryStreamFactory()).write(); // canonical
        changeAfterSnapshot(b);

        KeyedStateBackend heapLow = create(new HeapStateBackend(), new KeyGroupRange(0, 63), List.of(savepoint), false);
        KeyedStateBackend heapHigh = create(new HeapStateBackend(), new KeyGroupRange(64, 127), List.of(savepoint), false);
        assertThat(heapLow.timerQueue(EVENT).size()).isEqualTo(expected.get(0).size());
        KeyGroupsStateHandle low = heapLow.snapshot(2, new MemoryStreamFactory()).write();
        KeyGroupsStateHandle high = heapHigh.snapshot(2, new MemoryStreamFactory()).write();
        assertThat(new TreeSet<>(drain(heapHigh.timerQueue(EVENT), Long.MAX_VALUE))).isEqualTo(expected.get(1));

        KeyedStateBackend back = rocks(ALL, List.of(low, high));
        Set<String> all = new TreeSet<>(expected.get(0));
        all.addAll(expected.get(1));
        assertThat(back.timerQueue(EVENT).size()).isEqualTo(all.size());
        assertThat(new TreeSet<>(drain(back.timerQueue(EVENT), Long.MAX_VALUE))).isEqualTo(all);
    }

    @Test
    void incrementalCheckpointTimersRestoreWithRescaling() throws Exception {
        KeyedStateBackend b = rocks(ALL, List.of());
        List<Set<String>> expected = addTimers(b);
        KeyGroupsStateHandle checkpoint = b.snapshot(1, MemoryStreamFactory.withSharedState()).write();
        assertThat(checkpoint.isIncremental()).isTrue();
        changeAfterSnapshot(b);

        KeyedStateBackend low = rocks(new KeyGroupRange(0, 63), List.of(checkpoint));
        KeyedStateBackend high = rocks(new KeyGroupRange(64, 127), List.of(checkpoint));
        assertThat(low.timerQueue(EVENT).size()).isEqualTo(expected.get(0).size());
        assertThat(new TreeSet<>(drain(low.timerQueue(EVENT), Long.MAX_VALUE))).isEqualTo(expected.get(0));
        assertThat(new TreeSet<>(drain(high.timerQueue(EVENT), Long.MAX_VALUE))).isEqualTo(expected.get(1));
    }

    @Test
    void heapSavepointTimersRestoreOnRocksDB() throws Exception {
        KeyedStateBackend heap = create(new HeapStateBackend(), ALL, List.of(), false);
        List<Set<String>> expected = addTimers(heap);
        KeyGroupsStateHandle savepoint = heap.snapshot(1, new MemoryStreamFactory()).write();

        KeyedStateBackend high = rocks(new KeyGroupRange(64, 127), List.of(savepoint));
        assertThat(new TreeSet<>(drain(high.timerQueue(EVENT), Long.MAX_VALUE))).isEqualTo(expected.get(1));
    }

    @Test
    void timerQueueNameUsedByAValueStateIsRefused() throws Exception {
        KeyedStateBackend b = rocks(ALL, List.of());
        b.getState(new StateDescriptor.Value<>(EVENT, Serializers.LONG));
        assertThatThrownBy(() -> b.timerQueue(EVENT)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("'" + EVENT + "'").hasMessageContaining("VALUE");
    }

    @Test
    void addWithoutCurrentKeyIsRefused() throws Exception {
        KeyedTimerQueue q = rocks(ALL, List.of()).timerQueue("_timers/processing");
        assertThatThrownBy(() -> q.add(1)).isInstanceOf(IllegalStateException.class);
    }
}
