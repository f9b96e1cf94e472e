package io.weir.runtime.checkpoint;

import io.weir.api.operator.CheckpointListener;
import io.weir.core.checkpoint.TaskId;
import io.weir.core.coordination.CheckpointResponder;
import io.weir.core.storage.CheckpointStorage;
import org.junit.jupiter.api.Test;

import io.weir.api.FieldType;
import io.weir.api.Row;
import io.weir.api.Schema;
import io.weir.api.plugin.PluginConfig;
import io.weir.api.sink.TwoPhaseCommittingSink;
import io.weir.core.plugin.MapPluginRegistry;
import io.weir.runtime.operators.DefaultOperatorContext;
import io.weir.runtime.operators.TwoPhaseCommitSinkOperator;
import io.weir.state.heap.HeapStateBackend;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Failure mode (c): when one operator of a chain throws in notifyCheckpointComplete, the others
 * (the 2PC sink among them) are still notified and commit, and the error is reported.
 */
class NotifyCheckpointCompleteTest {

    @Test
    void operatorThrowingInNotifyDoesNotStopTheSinkBehindItFromCommitting() {
        List<String> calls = new ArrayList<>();
        CheckpointListener failing = new CheckpointListener() {
            @Override
            public void notifyCheckpointComplete(long id) {
                calls.add("map:" + id);
                throw new IllegalStateException("map operator broke");
            }
        };
        CheckpointListener sink = new CheckpointListener() {
            @Override
            public void notifyCheckpointComplete(long id) {
                calls.add("sink-commit:" + id);
            }
        };
        CheckpointListener alsoFailing = new CheckpointListener() {
            @Override
            public void notifyCheckpointComplete(long id) {
                calls.add("other:" + id);
                throw new IllegalArgumentException("second failure");
            }
        };
        SubtaskCheckpointCoordinator coordinator = new SubtaskCheckpointCoordinator("job", new TaskId("v", 0, 0),
                List.of(participant("map", failing), participant("sink", sink), participant("other", alsoFailing)),
                id -> { }, new RecordingChannels(), (CheckpointStorage) null, (CheckpointResponder) null, Runnable::run);

        assertThatThrownBy(() -> coordinator.notifyCheckpointComplete(7))
                .hasMessageContaining("operator 'map'").hasMessageContaining("notifyCheckpointComplete(7)")
                .satisfies(e -> assertThat(e.getSuppressed()).singleElement()
                        .satisfies(s -> assertThat(s).hasMessage("second failure")));
        assertThat(calls).containsExactly("map:7", "sink-commit:7", "other:7");
    }

    @Test
    void realTwoPhaseCommitSinkCommitsWhenTheOperatorBeforeItThrows(@TempDir Path out) throws Exception {
        Schema schema = Schema.builder().field("origin", FieldType.STRING).field("n", FieldType.LONG).build();
        PluginConfig config = new PluginConfig("operators[2].config", Map.of("path", out.toString()), out);
        TwoPhaseCommittingSink<?> sink = MapPluginRegistry.fromServiceLoader(getClass().getClassLoader()).sink("file-2pc")
                .orElseThrow().create(config, schema);
        TwoPhaseCommitSinkOperator<?> sinkOperator = new TwoPhaseCommitSinkOperator<>(sink);
        sinkOperator.initializeState(new DefaultOperatorContext("job", "out", 0, 1, false,
                new HeapStateBackend().createOperatorStateBackend("out", List.of()), null));
        sinkOperator.processElement(new Row(schema, "SFO", 1L), row -> { });
        sinkOperator.processElement(new Row(schema, "LAX", 1L), row -> { });
        sinkOperator.prepareSnapshotPreBarrier(3, row -> { });
        sinkOperator.snapshotState(3);
        CheckpointListener failing = new CheckpointListener() {
            @Override
            public void notifyCheckpointComplete(long id) {
                throw new IllegalStateException("map operator broke");
            }
        };
        SubtaskCheckpointCoordinator coordinator = new SubtaskCheckpointCoordinator("job", new TaskId("v", 0, 0),
                List.of(participant("map", failing), participant("out", sinkOperator)),
                id -> { }, new RecordingChannels(), (CheckpointStorage) null, (CheckpointResponder) null, Runnable::run);

        assertThatThrownBy(() -> coordinator.notifyCheckpointComplete(3)).hasMessageContaining("operator 'map'");

        List<String> committed = new ArrayList<>();
        try (DirectoryStream<Path> files = Files.newDirectoryStream(out, "part-*")) {
            for (Path f : files) {
                committed.addAll(Files.readAllLines(f));
            }
        }
        assertThat(committed).hasSize(2).anySatisfy(l -> assertThat(l).contains("SFO")).anySatisfy(l -> assertThat(l).contains("LAX"));
        sinkOperator.close();
    }

    @Test
    void failureBeforeTheBarrierDeclinesAndSendsACancelMarkerInstead() {
        List<Object> sent = new ArrayList<>();
        List<String> declines = new ArrayList<>();
        CheckpointResponder responder = new CheckpointResponder() {
            @Override
            public void acknowledgeCheckpoint(TaskId task, long checkpointId, io.weir.core.checkpoint.SubtaskCheckpointMetrics metrics,
                    io.weir.core.checkpoint.TaskStateSnapshot state) {
                declines.add("ack " + checkpointId);
            }

            @Override
            public void declineCheckpoint(TaskId task, long checkpointId, io.weir.core.checkpoint.CheckpointFailureReason reason, Throwable cause) {
                declines.add("decline " + checkpointId + " " + reason + " " + cause.getMessage());
            }
        };
        SubtaskCheckpointCoordinator coordinator = new SubtaskCheckpointCoordinator("job", new TaskId("v", 0, 0), List.of(),
                id -> {
                    throw new IllegalStateException("flush failed");
                }, new RecordingChannels(sent), (CheckpointStorage) null, responder, Runnable::run);

        coordinator.checkpointState(new io.weir.core.checkpoint.CheckpointBarrier(4, 0, io.weir.core.checkpoint.CheckpointOptions.aligned()),
                new io.weir.core.barrier.BarrierAlignment(0, 0, 0));

        assertThat(declines).containsExactly("decline 4 CHECKPOINT_DECLINED flush failed");
        assertThat(sent).containsExactly(new io.weir.core.checkpoint.CancelCheckpointMarker(4));
    }

    /** Records events; no in-flight data. */
    private record RecordingChannels(List<Object> sent) implements ChannelIO {
        RecordingChannels() {
            this(new ArrayList<>());
        }

        @Override
        public List<java.util.concurrent.CompletableFuture<List<byte[]>>> broadcastBarrier(io.weir.core.checkpoint.CheckpointBarrier barrier) {
            sent.add(barrier);
            return List.of();
        }

        @Override
        public void broadcastEvent(Object event) {
            sent.add(event);
        }

        @Override
        public java.util.concurrent.CompletableFuture<RecordedInput> inputChannelState(long checkpointId) {
            return java.util.concurrent.CompletableFuture.completedFuture(RecordedInput.NONE);
        }
    }

    private static SnapshotParticipant participant(String id, CheckpointListener listener) {
        return new SnapshotParticipant(id, cid -> { }, null, null, listener);
    }
}
