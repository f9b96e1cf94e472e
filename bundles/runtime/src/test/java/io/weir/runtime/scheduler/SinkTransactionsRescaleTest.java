package io.weir.runtime.scheduler;

import io.weir.api.FieldType;
import io.weir.api.Row;
import io.weir.api.Schema;
import io.weir.api.operator.Output;
import io.weir.core.checkpoint.CheckpointMetadata;
import io.weir.core.checkpoint.OperatorState;
import io.weir.core.checkpoint.OperatorSubtaskState;
import io.weir.core.job.JobVertex;
import io.weir.core.job.VertexKind;
import io.weir.plugin.filesink.FileSink;
import io.weir.plugin.filesink.FileSinkSettings;
import io.weir.plugin.filesink.FileTransaction;
import io.weir.runtime.operators.DefaultOperatorContext;
import io.weir.runtime.operators.TwoPhaseCommitSinkOperator;
import io.weir.state.heap.operator.HeapOperatorStateBackend;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The 2PC sink's recorded transactions after a restore with fewer subtasks (PROTOCOL.md §8, issue 7):
 * each is committed exactly once, by the one subtask it is dealt to, even when that is not the
 * subtask that opened it, and the leftovers of every old subtask (also of the removed ones) are gone
 * after the first checkpoint that completes after the restore.
 */
class SinkTransactionsRescaleTest {
    private static final Schema SCHEMA = Schema.builder().field("v", FieldType.STRING).build();
    private static final Output NO_OUTPUT = new Output() {
        @Override
        public void collect(Row row) {
            throw new AssertionError("a sink emits nothing");
        }
    };

    @TempDir
    Path dir;

    private TwoPhaseCommitSinkOperator<FileTransaction> operator(int subtask, int parallelism, boolean restored,
            HeapOperatorStateBackend state) throws Exception {
        TwoPhaseCommitSinkOperator<FileTransaction> op = new TwoPhaseCommitSinkOperator<>(
                new FileSink(new FileSinkSettings(dir, "part"), SCHEMA));
        op.initializeState(new DefaultOperatorContext("job", "out", subtask, parallelism, restored, state, null));
        return op;
    }

    @Test
    void recordedTransactionsAreCommittedOnceAndLeftoversOfAllOldSubtasksRemovedAfterScalingDown() throws Exception {
        // run 1, parallelism 4: checkpoint 2 records subtask 0's transactions of checkpoints 1 and 2 and
        // the others' of checkpoint 2; then each pre-commits a transaction for checkpoint 3, which never completes
        Map<Integer, OperatorSubtaskState> recorded = new HashMap<>();
        List<String> expected = new ArrayList<>();
        for (int s = 0; s < 4; s++) {
            HeapOperatorStateBackend state = new HeapOperatorStateBackend("out", List.of());
            TwoPhaseCommitSinkOperator<FileTransaction> op = operator(s, 4, false, state);
            if (s == 0) {
                op.processElement(new Row(SCHEMA, "s0-cp1"), NO_OUTPUT);
                op.prepareSnapshotPreBarrier(1, NO_OUTPUT);
                expected.add("s0-cp1");
            }
            op.processElement(new Row(SCHEMA, "s" + s + "-cp2"), NO_OUTPUT);
            op.prepareSnapshotPreBarrier(2, NO_OUTPUT);
            expected.add("s" + s + "-cp2");
            op.snapshotState(2);
            recorded.put(s, new OperatorSubtaskState(List.of(state.snapshot(2, new MemoryStreams()).write()), List.of()));
            op.processElement(new Row(SCHEMA, "s" + s + "-cp3"), NO_OUTPUT);
            op.prepareSnapshotPreBarrier(3, NO_OUTPUT); // the process dies here: no commit, no close
        }
        assertThat(inProgress()).as("recorded and leftover transactions of run 1").hasSize(9);
        CheckpointMetadata cp = new CheckpointMetadata(2, "job", 0, false, Map.of("out", new OperatorState("out", 4, 128, recorded)));
        JobVertex sink = new JobVertex("out", VertexKind.SINK, "file-2pc", 2, null, SCHEMA, null, false);

        // run 2, parallelism 2: subtask 0 starts first; subtask 1 is dealt a transaction opened by old subtask 0
        List<TwoPhaseCommitSinkOperator<FileTransaction>> restored = new ArrayList<>();
        for (int s = 0; s < 2; s++) {
            OperatorSubtaskState mine = StateAssignment.assign(cp, sink, s, 128);
            restored.add(operator(s, 2, true, new HeapOperatorStateBackend("out", mine.operatorState())));
        }
        assertThat(committedLines()).as("every recorded transaction committed once during initialization")
                .containsExactlyInAnyOrderElementsOf(expected);

        for (TwoPhaseCommitSinkOperator<FileTransaction> op : restored) {
            op.notifyCheckpointComplete(5); // the first checkpoint completed after the restore
        }

        assertThat(inProgress()).as("leftovers of old subtasks 0-3, including the removed 2 and 3").isEmpty();
        assertThat(committedLines()).containsExactlyInAnyOrderElementsOf(expected);
        for (TwoPhaseCommitSinkOperator<FileTransaction> op : restored) {
            op.close();
        }
    }

    private List<String> inProgress() throws Exception {
        try (Stream<Path> files = Files.list(dir)) {
            return files.map(p -> p.getFileName().toString()).filter(n -> n.endsWith(".inprogress")).toList();
        }
    }

    /** The {@code v} of every committed line. */
    private List<String> committedLines() throws Exception {
        List<String> lines = new ArrayList<>();
        try (Stream<Path> files = Files.list(dir)) {
            for (Path f : files.filter(p -> p.getFileName().toString().endsWith(".jsonl")).toList()) {
                for (String line : Files.readAllLines(f)) {
                    lines.add(line.replace("{\"v\":\"", "").replace("\"}", ""));
                }
            }
        }
        return lines;
    }
}
