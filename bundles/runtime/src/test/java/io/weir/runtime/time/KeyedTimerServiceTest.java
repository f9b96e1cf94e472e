package io.weir.runtime.time;

import io.weir.api.FieldType;
import io.weir.api.Row;
import io.weir.api.RowSerializer;
import io.weir.api.Schema;
import io.weir.core.checkpoint.KeyGroupsStateHandle;
import io.weir.core.state.KeyHashVersion;
import io.weir.core.state.KeyGroupRange;
import io.weir.core.state.KeyedStateBackend;
import io.weir.core.state.KeyedStateBackendParameters;
import io.weir.runtime.scheduler.MemoryStreams;
import io.weir.state.heap.HeapStateBackend;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class KeyedTimerServiceTest {
    private static final Schema KEY = Schema.builder().field("k", FieldType.STRING).build();
    private static final int MAX = 128;

    /** A clock moved by the test; records the wake-ups asked for. */
    private static final class ManualClock implements ProcessingTimeScheduler {
        long now;
        final List<Long> wakeUps = new ArrayList<>();

        @Override
        public long now() {
            return now;
        }

        @Override
        public void wakeUpAt(long timestamp) {
            wakeUps.add(timestamp);
        }

        @Override
        public void cancel() {
        }
    }

    private final List<String> fired = new ArrayList<>();
    private KeyedStateBackend backend;

    private KeyedStateBackend backend(KeyGroupRange range, List<KeyGroupsStateHandle> restore) throws Exception {
        return new HeapStateBackend().createKeyedStateBackend(new KeyedStateBackendParameters("job", "op", 0, MAX, range,
                new RowSerializer(KEY), restore));
    }

    private void key(String k) {
        Row row = new Row(KEY, k);
        backend.setCurrentKey(row, KeyHashVersion.LEGACY.keyGroupFor(row, MAX));
    }

    private TimerTarget recorder() {
        return (ts, key, domain) -> {
            // keyed state is scoped to the timer's key while it fires
            assertThat(backend.currentKey()).isEqualTo(key);
            fired.add(domain + " " + key.get(0) + "@" + ts);
        };
    }

    @Test
    void eventTimersFireInOrderWhenTheWatermarkPassesThem() throws Exception {
        backend = backend(new KeyGroupRange(0, MAX - 1), List.of());
        KeyedTimerService timers = new KeyedTimerService(backend, new ManualClock());
        key("a");
        timers.registerEventTimeTimer(300);
        timers.registerEventTimeTimer(100);
        key("b");
        timers.registerEventTimeTimer(200);
        timers.registerEventTimeTimer(200); // deduplicated
        timers.deleteEventTimeTimer(300); // b has none at 300: nothing happens

        timers.advanceWatermark(99, recorder());
        assertThat(fired).isEmpty();
        timers.advanceWatermark(200, recorder());
        assertThat(fired).containsExactly("EVENT_TIME a@100", "EVENT_TIME b@200");
        assertThat(timers.currentWatermark()).isEqualTo(200);
        timers.advanceWatermark(150, recorder()); // lower watermark: no effect
        assertThat(timers.currentWatermark()).isEqualTo(200);
        timers.advanceWatermark(Long.MAX_VALUE, recorder());
        assertThat(fired).containsExactly("EVENT_TIME a@100", "EVENT_TIME b@200", "EVENT_TIME a@300");
    }

    @Test
    void processingTimersAskForAWakeUpAtTheEarliestAndFireWhenDue() throws Exception {
        backend = backend(new KeyGroupRange(0, MAX - 1), List.of());
        ManualClock clock = new ManualClock();
        KeyedTimerService timers = new KeyedTimerService(backend, clock);
        key("a");
        timers.registerProcessingTimeTimer(500);
        timers.registerProcessingTimeTimer(900);
        key("b");
        timers.registerProcessingTimeTimer(400);
        assertThat(clock.wakeUps).containsExactly(500L, 400L);

        clock.now = 600;
        timers.onProcessingTime(clock.now, recorder());
        assertThat(fired).containsExactly("PROCESSING_TIME b@400", "PROCESSING_TIME a@500");
        assertThat(clock.wakeUps).containsExactly(500L, 400L, 900L);
        clock.now = 900;
        timers.onProcessingTime(clock.now, recorder());
        assertThat(fired).hasSize(3).last().isEqualTo("PROCESSING_TIME a@900");
    }

    @Test
    void timersSurviveASnapshotAndARescaledRestore() throws Exception {
        backend = backend(new KeyGroupRange(0, MAX - 1), List.of());
        KeyedTimerService timers = new KeyedTimerService(backend, new ManualClock());
        List<String> keys = List.of("a", "b", "c", "d", "e", "f", "g", "h");
        for (String k : keys) {
            key(k);
            timers.registerEventTimeTimer(1000);
            timers.registerProcessingTimeTimer(2000);
        }
        MemoryStreams streams = new MemoryStreams();
        KeyGroupsStateHandle handle = backend.snapshot(1, streams).write();

        // restore into two halves, as with parallelism 2: each key's timers end up exactly once
        List<String> all = new ArrayList<>();
        for (KeyGroupRange half : List.of(new KeyGroupRange(0, 63), new KeyGroupRange(64, 127))) {
            backend = backend(half, List.of(handle));
            ManualClock clock = new ManualClock();
            KeyedTimerService restored = new KeyedTimerService(backend, clock);
            fired.clear();
            restored.advanceWatermark(1000, recorder());
            if (!fired.isEmpty()) {
                assertThat(clock.wakeUps).as("restored processing-time timers are scheduled").containsExactly(2000L);
            }
            clock.now = 2000;
            restored.onProcessingTime(2000, recorder());
            all.addAll(fired);
        }
        List<String> expected = new ArrayList<>();
        for (String k : keys) {
            expected.add("EVENT_TIME " + k + "@1000");
            expected.add("PROCESSING_TIME " + k + "@2000");
        }
        assertThat(all).containsExactlyInAnyOrderElementsOf(expected);
    }
}
