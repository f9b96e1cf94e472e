package io.weir.state.heap;

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
import io.weir.core.checkpoint.KeyGroupsStateHandle;
import io.weir.core.checkpoint.OperatorStateHandle;
import io.weir.core.checkpoint.StreamStateHandle.ByteStreamStateHandle;
import io.weir.core.state.KeyHashVersion;
import io.weir.core.state.KeyGroupRange;
import io.weir.core.state.KeyedStateBackend;
import io.weir.core.state.KeyedStateBackendParameters;
import io.weir.core.state.OperatorStateBackend;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Restores the heap backend's state streams checked in under {@code src/test/resources/golden/}
 * (keyed stream {@code WHKS} and operator stream {@code WHOS}, version 1 each; docs/checkpoint-format.md)
 * and asserts every value, so a change that no longer reads existing checkpoints fails here. The files
 * were written by this backend's snapshot; the offsets below are the ones that snapshot's handle held
 * (they are part of the checkpoint, stored in {@code _metadata}), the values the ones it was given.
 */
class HeapSnapshotGoldenFilesTest {
    private static final Schema KEY = Schema.builder().field("id", FieldType.LONG).build();
    /** Max parallelism (number of key groups) of the golden keyed snapshot. */
    private static final int KEY_GROUPS = 4;
    /** Key 1 is in key group 3, keys 2 and 3 in key group 0; groups 1 and 2 are empty. */
    private static final long[] KEYED_OFFSETS = {8, 265, 273, 281};

    private static byte[] golden(String name) throws IOException {
        try (InputStream in = HeapSnapshotGoldenFilesTest.class.getResourceAsStream("/golden/" + name)) {
            assertThat(in).as("golden file %s on the test classpath", name).isNotNull();
            return in.readAllBytes();
        }
    }

    private static KeyedStateBackend restoreKeyed(KeyGroupRange range) throws Exception {
        KeyGroupsStateHandle handle = new KeyGroupsStateHandle(new KeyGroupRange(0, KEY_GROUPS - 1), KEYED_OFFSETS,
                new ByteStreamStateHandle(golden("heap-keyed-v1.bin")));
        return new HeapStateBackend().createKeyedStateBackend(new KeyedStateBackendParameters("job", "op", 0, KEY_GROUPS,
                range, new RowSerializer(KEY), List.of(handle)));
    }

    private static void setKey(KeyedStateBackend b, long id) {
        Row k = new Row(KEY, id);
        b.setCurrentKey(k, KeyHashVersion.LEGACY.keyGroupFor(k, KEY_GROUPS));
    }

    @Test
    void keyedStreamVersion1HasItsHeader() throws Exception {
        ByteBuffer bytes = ByteBuffer.wrap(golden("heap-keyed-v1.bin"));
        assertThat(bytes.getInt(0)).as("magic WHKS").isEqualTo(0x57484B53);
        assertThat(bytes.getInt(4)).as("version").isEqualTo(1);
        assertThat(bytes.getInt((int) KEYED_OFFSETS[3])).as("key group written at its offset").isEqualTo(3);
    }

    @Test
    void keyedStreamVersion1RestoresEveryKindOfState() throws Exception {
        KeyedStateBackend b = restoreKeyed(new KeyGroupRange(0, KEY_GROUPS - 1));
        ValueState<Long> visits = b.getState(new StateDescriptor.Value<>("visits", Serializers.LONG));
        ListState<String> tags = b.getState(new StateDescriptor.List<>("tags", Serializers.STRING));
        MapState<String, Long> scores = b.getState(new StateDescriptor.Map<>("scores", Serializers.STRING, Serializers.LONG));
        ReducingState<Long> total = b.getState(new StateDescriptor.Reducing<>("total", Long::sum, Serializers.LONG));

        setKey(b, 1);
        assertThat(visits.value()).isEqualTo(10L);
        assertThat(tags.get()).containsExactly("t1", "x");
        assertThat(scores.entries()).isEqualTo(Map.of("a", 1L));
        assertThat(total.get()).isEqualTo(101L);
        setKey(b, 2);
        assertThat(visits.value()).isEqualTo(20L);
        assertThat(tags.get()).containsExactly("t2");
        assertThat(scores.entries()).isEqualTo(Map.of("a", 2L));
        assertThat(total.get()).isEqualTo(102L);
        setKey(b, 3);
        assertThat(visits.value()).isEqualTo(30L);
        assertThat(tags.get()).containsExactly("t3", "x");
        assertThat(scores.entries()).isEqualTo(Map.of("a", 3L, "b", 33L));
        assertThat(total.get()).isEqualTo(103L);
        setKey(b, 4);
        assertThat(visits.value()).isNull();
    }

    @Test
    void keyedStreamVersion1RestoresOnlyTheKeyGroupsOfASmallerRange() throws Exception {
        KeyedStateBackend b = restoreKeyed(new KeyGroupRange(3, 3));
        ValueState<Long> visits = b.getState(new StateDescriptor.Value<>("visits", Serializers.LONG));
        setKey(b, 1);
        assertThat(visits.value()).isEqualTo(10L);
    }

    @Test
    void operatorStreamVersion1RestoresEveryList() throws Exception {
        byte[] bytes = golden("heap-operator-v1.bin");
        assertThat(ByteBuffer.wrap(bytes).getInt(0)).as("magic WHOS").isEqualTo(0x57484F53);
        assertThat(ByteBuffer.wrap(bytes).getInt(4)).as("version").isEqualTo(1);
        OperatorStateHandle handle = new OperatorStateHandle(
                Map.of("offsets", new long[] {23, 35, 47}, "splits", new long[] {73, 87}, "empty", new long[0]),
                new ByteStreamStateHandle(bytes));
        OperatorStateBackend b = new HeapStateBackend().createOperatorStateBackend("source", List.of(handle));
        assertThat(b.getListState("offsets", Serializers.LONG).get()).containsExactly(10L, 20L, 30L);
        assertThat(b.getListState("splits", Serializers.STRING).get()).containsExactly("file-a", "file-b");
        assertThat(b.getListState("empty", Serializers.STRING).get()).isEmpty();

        // a subset of offsets, as after round-robin redistribution
        OperatorStateHandle subset = new OperatorStateHandle(Map.of("splits", new long[] {87}), new ByteStreamStateHandle(bytes));
        assertThat(new HeapStateBackend().createOperatorStateBackend("source", List.of(subset))
                .getListState("splits", Serializers.STRING).get()).containsExactly("file-b");
    }
}
