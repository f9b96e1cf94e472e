package io.weir.runtime.scheduler;

import io.weir.api.Schema;
import io.weir.api.FieldType;
import io.weir.api.serialization.Serializers;
import io.weir.api.state.ListState;
import io.weir.core.checkpoint.CheckpointMetadata;
import io.weir.core.checkpoint.KeyGroupsStateHandle;
import io.weir.core.checkpoint.OperatorState;
import io.weir.core.checkpoint.OperatorStateHandle;
import io.weir.core.checkpoint.OperatorSubtaskState;
import io.weir.core.checkpoint.StreamStateHandle;
import io.weir.core.config.Configuration;
import io.weir.core.job.JobEdge;
import io.weir.core.job.JobGraph;
import io.weir.core.job.JobVertex;
import io.weir.core.job.Partitioning;
import io.weir.core.job.VertexKind;
import io.weir.core.state.KeyGroupRange;
import io.weir.state.heap.operator.HeapOperatorStateBackend;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Which checkpointed state each new subtask restores when parallelism changes (PROTOCOL.md §7). */
class StateAssignmentTest {
    private static final Schema SCHEMA = Schema.builder().field("key", FieldType.LONG).build();

    /** Old operator list state of 3 subtasks, in old-subtask order: a0..a3 | b0 | c0 c1, and "other": x0 | - | y0. */
    private static final List<List<String>> OLD_PENDING = List.of(List.of("a0", "a1", "a2", "a3"), List.of("b0"), List.of("c0", "c1"));
    private static final List<List<String>> OLD_OTHER = List.of(List.of("x0"), List.of(), List.of("y0"));

    private static JobVertex vertex(String id, VertexKind kind, int parallelism) {
        return new JobVertex(id, kind, "x", parallelism, null, kind == VertexKind.SOURCE ? null : SCHEMA,
                kind == VertexKind.SINK ? null : SCHEMA, false);
    }

    /** Writes the old subtasks' lists through the heap backend, as a checkpoint would. */
    private static OperatorState oldOperatorState() throws Exception {
        Map<Integer, OperatorSubtaskState> subtasks = new HashMap<>();
        for (int s = 0; s < OLD_PENDING.size(); s++) {
            HeapOperatorStateBackend backend = new HeapOperatorStateBackend("op", List.of());
            ListState<String> pending = backend.getListState("pending", Serializers.STRING);
            pending.update(OLD_PENDING.get(s));
            ListState<String> other = backend.getListState("other", Serializers.STRING);
            other.update(OLD_OTHER.get(s));
            backend.getUnionListState("everywhere", Serializers.STRING).update(OLD_OTHER.get(s));
            OperatorStateHandle h = backend.snapshot(1, new MemoryStreams()).write();
            subtasks.put(s, new OperatorSubtaskState(List.of(h), List.of()));
        }
        return new OperatorState("op", OLD_PENDING.size(), 128, subtasks);
    }

    private static List<String> restore(OperatorState old, int parallelism, int subtask, String name) throws Exception {
        return backend(old, parallelism, subtask).getListState(name, Serializers.STRING).get();
    }

    private static HeapOperatorStateBackend backend(OperatorState old, int parallelism, int subtask) throws Exception {
        CheckpointMetadata cp = new CheckpointMetadata(1, "j", 0, false, Map.of("op", old));
        OperatorSubtaskState assigned = StateAssignment.assign(cp, vertex("op", VertexKind.OPERATOR, parallelism), subtask, 128);
        return new HeapOperatorStateBackend("op", assigned.operatorState());
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 2, 3, 5}) // 3 is the old parallelism: union state still goes everywhere
    void unionListStateGivesEverySubtaskAllElementsInOldSubtaskOrder(int parallelism) throws Exception {
        OperatorState old = oldOperatorState();
        for (int s = 0; s < parallelism; s++) {
            HeapOperatorStateBackend backend = backend(old, parallelism, s);
            assertThat(backend.getUnionListState("everywhere", Serializers.STRING).get()).as("subtask %d of %d", s, parallelism)
                    .containsExactly("x0", "y0");
        }
    }

    @Test
    void aNameIsEitherAListStateOrAUnionListState() throws Exception {
        HeapOperatorStateBackend backend = new HeapOperatorStateBackend("op", List.of());
        backend.getListState("offsets", Serializers.LONG);

        assertThatThrownBy(() -> backend.getUnionListState("offsets", Serializers.LONG))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("'offsets'").hasMessageContaining("list state");
        assertThatThrownBy(() -> backend.getListState("union:x", Serializers.LONG))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("reserved");
    }

    @Test
    void operatorListStateScaledDownIsDealtRoundRobinInOldSubtaskOrder() throws Exception {
        OperatorState old = oldOperatorState();

        // expected by hand: element n of a name, counted across old subtasks 0, 1, 2, goes to n % 2
        assertThat(restore(old, 2, 0, "pending")).containsExactly("a0", "a2", "b0", "c1");
        assertThat(restore(old, 2, 1, "pending")).containsExactly("a1", "a3", "c0");
        assertThat(restore(old, 2, 0, "other")).containsExactly("x0");
        assertThat(restore(old, 2, 1, "other")).containsExactly("y0");
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 2, 4, 7, 10}) // 3 is the old parallelism: each subtask keeps its own (below)
    void operatorListStateIsSplitEvenlyWithEveryElementRestoredOnce(int parallelism) throws Exception {
        OperatorState old = oldOperatorState();
        List<String> all = new ArrayList<>();
        for (int s = 0; s < parallelism; s++) {
            List<String> mine = restore(old, parallelism, s, "pending");
            int total = 7;
            assertThat(mine).as("subtask %d of %d", s, parallelism).hasSize(total / parallelism + (s < total % parallelism ? 1 : 0));
            all.addAll(mine);
        }
        assertThat(all).containsExactlyInAnyOrder("a0", "a1", "a2", "a3", "b0", "c0", "c1");
    }

    @Test
    void unchangedParallelismRestoresEachSubtasksOwnState() throws Exception {
        OperatorState old = oldOperatorState();
        for (int s = 0; s < 3; s++) {
            assertThat(restore(old, 3, s, "pending")).containsExactlyElementsOf(OLD_PENDING.get(s));
        }
    }

    @Test
    void keyedStateGoesToTheSubtasksWhoseNewRangesOverlapIt() {
        // old parallelism 2 of 8 key groups: [0,3] and [4,7]
        StreamStateHandle bytes = new StreamStateHandle.ByteStreamStateHandle(new byte[0]);
        KeyGroupsStateHandle low = new KeyGroupsStateHandle(new KeyGroupRange(0, 3), new long[4], bytes);
        KeyGroupsStateHandle high = new KeyGroupsStateHandle(new KeyGroupRange(4, 7), new long[4], bytes);
        OperatorState old = new OperatorState("op", 2, 8, Map.of(0, new OperatorSubtaskState(List.of(), List.of(low)),
                1, new OperatorSubtaskState(List.of(), List.of(high))));
        CheckpointMetadata cp = new CheckpointMetadata(1, "j", 0, false, Map.of("op", old));

        // doubled: [0,1] [2,3] [4,5] [6,7]; halved: [0,7]; three: [0,2] [3,5] [6,7]
        assertThat(StateAssignment.assign(cp, vertex("op", VertexKind.OPERATOR, 4), 1, 8).keyedState()).containsExactly(low);
        assertThat(StateAssignment.assign(cp, vertex("op", VertexKind.OPERATOR, 4), 2, 8).keyedState()).containsExactly(high);
        assertThat(StateAssignment.assign(cp, vertex("op", VertexKind.OPERATOR, 1), 0, 8).keyedState()).containsExactly(low, high);
        assertThat(StateAssignment.assign(cp, vertex("op", VertexKind.OPERATOR, 3), 1, 8).keyedState()).containsExactly(low, high);
        assertThat(StateAssignment.assign(cp, vertex("op", VertexKind.OPERATOR, 3), 2, 8).keyedState()).containsExactly(high);
    }

    @Test
    void changedMaxParallelismOfAKeyedOperatorIsRefusedNamingTheOperator() {
        KeyGroupsStateHandle h = new KeyGroupsStateHandle(new KeyGroupRange(0, 63), new long[64],
                new StreamStateHandle.ByteStreamStateHandle(new byte[0]));
        CheckpointMetadata cp = new CheckpointMetadata(3, "j", 0, false, Map.of("agg",
                new OperatorState("agg", 1, 64, Map.of(0, new OperatorSubtaskState(List.of(), List.of(h))))));
        JobGraph job = new JobGraph("j", Configuration.empty(), List.of(vertex("agg", VertexKind.OPERATOR, 2)), List.of());

        assertThatThrownBy(() -> StateAssignment.checkRestorable(cp, job, 128, type -> false))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("'agg'").hasMessageContaining("64 key groups")
                .hasMessageContaining("set pipeline.max-parallelism back to 64");
    }

    @Test
    void sourceWithAnotherParallelismIsRefusedNamingTheCheckpointsParallelism() {
        CheckpointMetadata cp = new CheckpointMetadata(3, "j", 0, false, Map.of(
                "src", new OperatorState("src", 2, 128, Map.of()), "sink", new OperatorState("sink", 2, 128, Map.of())));
        JobGraph job = new JobGraph("j", Configuration.empty(),
                List.of(vertex("src", VertexKind.SOURCE, 3), vertex("sink", VertexKind.SINK, 4)),
                List.of(new JobEdge("src", "sink", Partitioning.REBALANCE, List.of())));

        assertThatThrownBy(() -> StateAssignment.checkRestorable(cp, job, 128, type -> false))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("source 'src'").hasMessageContaining("restore with the checkpoint's parallelism 2");
    }

    @Test
    void nonSourceOperatorsMayChangeParallelism() {
        CheckpointMetadata cp = new CheckpointMetadata(3, "j", 0, false, Map.of(
                "src", new OperatorState("src", 2, 128, Map.of()), "sink", new OperatorState("sink", 2, 128, Map.of())));
        JobGraph job = new JobGraph("j", Configuration.empty(),
                List.of(vertex("src", VertexKind.SOURCE, 2), vertex("sink", VertexKind.SINK, 4)),
                List.of(new JobEdge("src", "sink", Partitioning.REBALANCE, List.of())));

        StateAssignment.checkRestorable(cp, job, 128, type -> false);
    }

    @Test
    void sourceWhosePluginSupportsRescaleMayChangeParallelism() {
        CheckpointMetadata cp = new CheckpointMetadata(3, "j", 0, false, Map.of(
                "src", new OperatorState("src", 2, 128, Map.of()), "sink", new OperatorState("sink", 2, 128, Map.of())));
        JobGraph job = new JobGraph("j", Configuration.empty(),
                List.of(vertex("src", VertexKind.SOURCE, 3), vertex("sink", VertexKind.SINK, 4)),
                List.of(new JobEdge("src", "sink", Partitioning.REBALANCE, List.of())));

        StateAssignment.checkRestorable(cp, job, 128, type -> type.equals("x")); // vertex(...) has plugin type "x"
        assertThatThrownBy(() -> StateAssignment.checkRestorable(cp, job, 128, type -> type.equals("file")))
                .hasMessageContaining("source 'src'").hasMessageContaining("'x' source");
    }
}
