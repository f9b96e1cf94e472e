package io.weir.state.heap.operator;

import io.weir.api.serialization.Serializers;
import io.weir.api.serialization.TypeSerializer;
import io.weir.api.state.ListState;
import io.weir.core.checkpoint.OperatorStateHandle;
import io.weir.core.checkpoint.StreamStateHandle.FileStateHandle;
import io.weir.core.state.AsyncSnapshot;
import io.weir.core.state.OperatorStateBackend;
import io.weir.state.heap.FileStreamFactory;
import io.weir.state.heap.HeapStateBackend;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class HeapOperatorStateBackendTest {
    @TempDir
    Path dir;

    private static OperatorStateBackend backend(List<OperatorStateHandle> restore) throws Exception {
        return new HeapStateBackend().createOperatorStateBackend("source", restore);
    }

    @Test
    void snapshotRoundTripRestoresEveryListWithOneOffsetPerElement() throws Exception {
        OperatorStateBackend b = backend(List.of());
        b.getListState("offsets", Serializers.LONG).update(List.of(10L, 20L, 30L));
        b.getListState("splits", Serializers.STRING).add("file-a");
        b.getListState("empty", Serializers.STRING);

        OperatorStateHandle handle = b.snapshot(1, new FileStreamFactory(dir)).write();

        assertThat(handle.stateOffsets()).containsOnlyKeys("offsets", "splits", "empty");
        assertThat(handle.stateOffsets().get("offsets")).hasSize(3);
        assertThat(handle.stateOffsets().get("empty")).isEmpty();
        OperatorStateBackend restored = backend(List.of(handle));
        assertThat(restored.getListState("offsets", Serializers.LONG).get()).containsExactly(10L, 20L, 30L);
        assertThat(restored.getListState("splits", Serializers.STRING).get()).containsExactly("file-a");
        assertThat(restored.getListState("empty", Serializers.STRING).get()).isEmpty();
    }

    @Test
    void snapshotSeesListsAsOfTheSynchronousPart() throws Exception {
        OperatorStateBackend b = backend(List.of());
        ListState<Long> s = b.getListState("offsets", Serializers.LONG);
        s.update(List.of(1L, 2L));
        AsyncSnapshot<OperatorStateHandle> async = b.snapshot(1, new FileStreamFactory(dir));
        s.add(3L);
        s.clear();
        OperatorStateHandle handle = async.write();
        assertThat(backend(List.of(handle)).getListState("offsets", Serializers.LONG).get()).containsExactly(1L, 2L);
    }

    @Test
    void restoreConcatenatesSameNamedListsAndReadsOnlyListedOffsets() throws Exception {
        OperatorStateBackend a = backend(List.of());
        a.getListState("offsets", Serializers.LONG).update(List.of(1L, 2L, 3L));
        OperatorStateBackend b = backend(List.of());
        b.getListState("offsets", Serializers.LONG).update(List.of(4L, 5L));
        OperatorStateHandle ha = a.snapshot(1, new FileStreamFactory(dir)).write();
        OperatorStateHandle hb = b.snapshot(1, new FileStreamFactory(dir)).write();

        assertThat(backend(List.of(ha, hb)).getListState("offsets", Serializers.LONG).get())
                .containsExactly(1L, 2L, 3L, 4L, 5L);
        // Round-robin redistribution hands a subtask a subset of offsets: only those are read.
        long[] offsetsA = ha.stateOffsets().get("offsets");
        OperatorStateHandle subset = new OperatorStateHandle(Map.of("offsets", new long[] {offsetsA[0], offsetsA[2]}),
                ha.delegate());
        assertThat(backend(List.of(subset)).getListState("offsets", Serializers.LONG).get()).containsExactly(1L, 3L);
    }

    @Test
    void restoredButUnregisteredStateIsCarriedIntoTheNextSnapshot() throws Exception {
        OperatorStateBackend a = backend(List.of());
        a.getListState("kept", Serializers.STRING).update(List.of("x", "y"));
        OperatorStateHandle first = a.snapshot(1, new FileStreamFactory(dir)).write();
        OperatorStateHandle second = backend(List.of(first)).snapshot(2, new FileStreamFactory(dir)).write();
        assertThat(backend(List.of(second)).getListState("kept", Serializers.STRING).get()).containsExactly("x", "y");
    }

    @Test
    void emptyStateGivesNullHandleWithoutCreatingAStream() throws Exception {
        OperatorStateBackend b = backend(List.of());
        b.getListState("offsets", Serializers.LONG).add(1L);
        b.getListState("offsets", Serializers.LONG).clear();
        FileStreamFactory streams = new FileStreamFactory(dir);
        assertThat(b.snapshot(1, streams).write()).isNull();
        assertThat(streams.created).hasValue(0);
    }

    @Test
    void anotherSerializerInstanceForTheSameNameIsRejected() throws Exception {
        OperatorStateBackend b = backend(List.of());
        b.getListState("l", Serializers.LONG);
        TypeSerializer<List<Long>> other = Serializers.listOf(Serializers.LONG);
        assertThatThrownBy(() -> b.getListState("l", other)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("'l'").hasMessageContaining("operator source");
    }

    @Test
    void truncatedStreamFailsNamingTheFileAndOperator() throws Exception {
        OperatorStateBackend b = backend(List.of());
        b.getListState("offsets", Serializers.LONG).update(List.of(1L, 2L, 3L));
        OperatorStateHandle handle = b.snapshot(1, new FileStreamFactory(dir)).write();
        Path file = Path.of(((FileStateHandle) handle.delegate()).path());
        byte[] bytes = Files.readAllBytes(file);
        Files.write(file, Arrays.copyOf(bytes, bytes.length - 5));
        assertThatThrownBy(() -> backend(List.of(handle))).isInstanceOf(IOException.class)
                .hasMessageContaining(file.toString()).hasMessageContaining("operator source")
                .hasMessageContaining("truncated");
    }
}
