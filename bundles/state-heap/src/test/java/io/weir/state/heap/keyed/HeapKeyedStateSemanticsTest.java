package io.weir.state.heap.keyed;

import io.weir.api.FieldType;
import io.weir.api.Row;
import io.weir.api.RowSerializer;
import io.weir.api.Schema;
import io.weir.api.serialization.Serializers;
import io.weir.api.state.ListState;
import io.weir.api.state.MapState;
import io.weir.api.state.ReducingState;
import io.weir.api.state.StateDescriptor;
import io.weir.api.state.ValueState;
import io.weir.core.state.KeyHashVersion;
import io.weir.core.state.KeyGroupRange;
import io.weir.core.state.KeyedStateBackend;
import io.weir.core.state.KeyedStateBackendParameters;
import io.weir.state.heap.FileStreamFactory;
import io.weir.state.heap.HeapStateBackend;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class HeapKeyedStateSemanticsTest {
    static final Schema KEY_SCHEMA = Schema.builder().field("id", FieldType.LONG).build();
    static final int MAX_PARALLELISM = 128;

    @TempDir
    Path dir;

    private KeyedStateBackend backend;

    @BeforeEach
    void create() throws Exception {
        backend = new HeapStateBackend().createKeyedStateBackend(new KeyedStateBackendParameters("job", "op", 0,
                MAX_PARALLELISM, new KeyGroupRange(0, MAX_PARALLELISM - 1), new RowSerializer(KEY_SCHEMA), List.of()));
    }

    static Row key(long id) {
        return new Row(KEY_SCHEMA, id);
    }

    static void setKey(KeyedStateBackend b, long id) {
        Row k = key(id);
        b.setCurrentKey(k, KeyHashVersion.LEGACY.keyGroupFor(k, MAX_PARALLELISM));
    }

    @Test
    void valueStateIsScopedToTheCurrentKey() {
        ValueState<Long> s = backend.getState(new StateDescriptor.Value<>("v", Serializers.LONG));
        setKey(backend, 1);
        s.update(10L);
        setKey(backend, 2);
        assertThat(s.value()).isNull();
        s.update(20L);
        setKey(backend, 1);
        assertThat(s.value()).isEqualTo(10L);
        s.update(null);
        assertThat(s.value()).isNull();
        setKey(backend, 2);
        s.clear();
        assertThat(s.value()).isNull();
        assertThat(backend.currentKey()).isEqualTo(key(2));
    }

    @Test
    void listStateAppendsReplacesAndReturnsSnapshots() {
        ListState<String> s = backend.getState(new StateDescriptor.List<>("l", Serializers.STRING));
        setKey(backend, 1);
        assertThat(s.get()).isEmpty();
        s.add("a");
        s.add("b");
        List<String> before = s.get();
        s.add("c");
        assertThat(before).containsExactly("a", "b");
        assertThat(s.get()).containsExactly("a", "b", "c");
        setKey(backend, 2);
        assertThat(s.get()).isEmpty();
        s.update(List.of("x"));
        assertThat(s.get()).containsExactly("x");
        setKey(backend, 1);
        s.clear();
        assertThat(s.get()).isEmpty();
        assertThatThrownBy(() -> s.add(null)).isInstanceOf(NullPointerException.class).hasMessageContaining("'l'");
    }

    @Test
    void mapStateKeepsAMapPerKey() {
        MapState<String, Long> s = backend.getState(new StateDescriptor.Map<>("m", Serializers.STRING, Serializers.LONG));
        setKey(backend, 1);
        s.put("a", 1L);
        s.put("b", 2L);
        Map<String, Long> copy = s.entries();
        s.put("a", 3L);
        assertThat(copy).containsExactlyInAnyOrderEntriesOf(Map.of("a", 1L, "b", 2L));
        assertThat(s.get("a")).isEqualTo(3L);
        assertThat(s.contains("b")).isTrue();
        setKey(backend, 2);
        assertThat(s.contains("a")).isFalse();
        assertThat(s.entries()).isEmpty();
        setKey(backend, 1);
        s.remove("a");
        s.remove("zzz");
        assertThat(s.entries()).containsExactlyEntriesOf(Map.of("b", 2L));
        s.clear();
        assertThat(s.get("b")).isNull();
    }

    @Test
    void reducingStateFoldsAddedValues() throws Exception {
        ReducingState<Long> s = backend.getState(new StateDescriptor.Reducing<>("r", Long::sum, Serializers.LONG));
        setKey(backend, 1);
        assertThat(s.get()).isNull();
        s.add(5L);
        s.add(7L);
        setKey(backend, 2);
        s.add(1L);
        setKey(backend, 1);
        assertThat(s.get()).isEqualTo(12L);
        s.clear();
        assertThat(s.get()).isNull();
    }

    @Test
    void sameNameReturnsSameStateAndOtherKindIsRejected() {
        ValueState<Long> a = backend.getState(new StateDescriptor.Value<>("x", Serializers.LONG));
        assertThat(backend.getState(new StateDescriptor.Value<>("x", Serializers.LONG))).isSameAs(a);
        assertThatThrownBy(() -> backend.getState(new StateDescriptor.List<>("x", Serializers.LONG)))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("VALUE").hasMessageContaining("LIST");
    }

    @Test
    void keyGroupOutsideRangeIsRejected() throws Exception {
        KeyedStateBackend small = new HeapStateBackend().createKeyedStateBackend(new KeyedStateBackendParameters("job",
                "op", 1, MAX_PARALLELISM, new KeyGroupRange(64, 127), new RowSerializer(KEY_SCHEMA), List.of()));
        assertThatThrownBy(() -> small.setCurrentKey(key(1), 3)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("key group 3").hasMessageContaining("subtask 1");
    }

    @Test
    void stateUsedBeforeAKeyIsSetFailsClearly() {
        ValueState<Long> s = backend.getState(new StateDescriptor.Value<>("v", Serializers.LONG));
        assertThatThrownBy(s::value).isInstanceOf(IllegalStateException.class).hasMessageContaining("'v'");
    }

    @Test
    void emptyStateGivesNullHandleWithoutCreatingAStream() throws Exception {
        ValueState<Long> s = backend.getState(new StateDescriptor.Value<>("v", Serializers.LONG));
        setKey(backend, 1);
        s.update(1L);
        s.clear();
        FileStreamFactory streams = new FileStreamFactory(dir);
        assertThat(backend.snapshot(1, streams).write()).isNull();
        assertThat(streams.created).hasValue(0);
    }
}
