package io.weir.state.heap.keyed;

import io.weir.api.RowSerializer;
import io.weir.api.serialization.Serializers;
import io.weir.api.state.StateDescriptor;
import io.weir.core.checkpoint.KeyGroupsStateHandle;
import io.weir.core.state.InternalTimer;
import io.weir.core.state.KeyHashVersion;
import io.weir.core.state.KeyGroupRange;
import io.weir.core.state.KeyedStateBackend;
import io.weir.core.state.KeyedStateBackendParameters;
import io.weir.core.state.KeyedTimerQueue;
import io.weir.state.heap.FileStreamFactory;
import io.weir.state.heap.HeapStateBackend;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

import static io.weir.state.heap.keyed.HeapKeyedStateSemanticsTest.KEY_SCHEMA;
import static io.weir.state.heap.keyed.HeapKeyedStateSemanticsTest.MAX_PARALLELISM;
import static io.weir.state.heap.keyed.HeapKeyedStateSemanticsTest.key;
import static io.weir.state.heap.keyed.HeapKeyedStateSemanticsTest.setKey;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class HeapTimerQueueTest {
    private static final KeyGroupRange ALL = new KeyGroupRange(0, MAX_PARALLELISM - 1);

    @TempDir
    Path dir;

    private static KeyedStateBackend backend(KeyGroupRange range, List<KeyGroupsStateHandle> restore) throws Exception {
        return new HeapStateBackend().createKeyedStateBackend(new KeyedStateBackendParameters("job", "op", 0,
                MAX_PARALLELISM, range, new RowSerializer(KEY_SCHEMA), restore));
    }

    /** @return "key@timestamp" of every timer up to {@code max}, in firing order */
    private static List<String> drain(KeyedTimerQueue q, long max) {
        List<String> fired = new ArrayList<>();
        InternalTimer t;
        while ((t = q.poll(max)) != null) {
            fired.add(t.key().get(0) + "@" + t.timestamp());
        }
        return fired;
    }

    @Test
    void timersFireInTimestampOrderOncePerKeyAndTimestamp() throws Exception {
        KeyedStateBackend b = backend(ALL, List.of());
        KeyedTimerQueue q = b.timerQueue("_timers/event");
        setKey(b, 1);
        assertThat(q.add(30)).isTrue();
        assertThat(q.add(10)).isTrue();
        assertThat(q.add(10)).isFalse(); // same key and timestamp: deduplicated
        setKey(b, 2);
        assertThat(q.add(20)).isTrue();
        assertThat(q.add(10)).isTrue(); // same timestamp, other key: a second timer
        assertThat(q.size()).isEqualTo(4);
        assertThat(q.peekTimestamp()).isEqualTo(10);

        assertThat(q.poll(9)).isNull();
        assertThat(new TreeSet<>(drain(q, 10))).containsExactly("1@10", "2@10");
        assertThat(drain(q, 100)).containsExactly("2@20", "1@30");
        assertThat(q.size()).isZero();
        assertThat(q.peekTimestamp()).isEqualTo(Long.MAX_VALUE);
    }

    @Test
    void deletedTimerDoesNotFireAndReAddedTimerFiresOnce() throws Exception {
        KeyedStateBackend b = backend(ALL, List.of());
        KeyedTimerQueue q = b.timerQueue("_timers/event");
        setKey(b, 7);
        q.add(5);
        q.add(6);
        assertThat(q.delete(5)).isTrue();
        assertThat(q.delete(5)).isFalse();
        assertThat(q.peekTimestamp()).isEqualTo(6);
        q.add(6); // duplicate of a live one
        q.delete(6);
        q.add(6); // deleted and added again: may sit twice in the priority queue, must fire once
        assertThat(q.size()).isEqualTo(1);
        assertThat(drain(q, Long.MAX_VALUE)).containsExactly("7@6");
    }

    @Test
    void timersSurviveSnapshotAndRestoreWithRescalingByKeyGroup() throws Exception {
        KeyedStateBackend b = backend(ALL, List.of());
        KeyedTimerQueue q = b.timerQueue("_timers/event");
        Set<String> expectedLow = new TreeSet<>();
        Set<String> expectedHigh = new TreeSet<>();
        for (long k = 0; k < 200; k++) {
            setKey(b, k);
            q.add(1000 + k);
            q.add(5000);
            int kg = KeyHashVersion.LEGACY.keyGroupFor(key(k), MAX_PARALLELISM);
            Set<String> expected = kg < 64 ? expectedLow : expectedHigh;
            expected.add(k + "@" + (1000 + k));
            expected.add(k + "@" + 5000);
        }
        KeyGroupsStateHandle handle = b.snapshot(1, new FileStreamFactory(dir)).write();
        // changes after the synchronous part are not in the snapshot (copy-on-write)
        setKey(b, 3);
        q.add(1);
        drain(q, 2000);

        KeyedStateBackend low = backend(new KeyGroupRange(0, 63), List.of(handle));
        KeyedStateBackend high = backend(new KeyGroupRange(64, 127), List.of(handle));
        assertThat(new TreeSet<>(drain(low.timerQueue("_timers/event"), Long.MAX_VALUE))).isEqualTo(expectedLow);
        assertThat(new TreeSet<>(drain(high.timerQueue("_timers/event"), Long.MAX_VALUE))).isEqualTo(expectedHigh);
        assertThat(expectedLow).isNotEmpty();
        assertThat(expectedHigh).isNotEmpty();
    }

    @Test
    void timerQueueNameUsedByAValueStateIsRefused() throws Exception {
        KeyedStateBackend b = backend(ALL, List.of());
        b.getState(new StateDescriptor.Value<>("_timers/event", Serializers.LONG));
        assertThatThrownBy(() -> b.timerQueue("_timers/event")).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("'_timers/event'").hasMessageContaining("VALUE");
    }

    @Test
    void addWithoutCurrentKeyIsRefused() throws Exception {
        KeyedTimerQueue q = backend(ALL, List.of()).timerQueue("_timers/processing");
        assertThatThrownBy(() -> q.add(1)).isInstanceOf(IllegalStateException.class);
    }
}
