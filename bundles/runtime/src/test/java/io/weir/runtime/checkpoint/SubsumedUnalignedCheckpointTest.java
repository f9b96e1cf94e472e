package io.weir.runtime.checkpoint;

import io.weir.core.barrier.BarrierAlignment;
import io.weir.core.checkpoint.CheckpointAlignment;
import io.weir.core.checkpoint.CheckpointBarrier;
import io.weir.core.checkpoint.CheckpointException;
import io.weir.core.checkpoint.CheckpointFailureReason;
import io.weir.core.checkpoint.CheckpointMetadata;
import io.weir.core.checkpoint.CheckpointOptions;
import io.weir.core.checkpoint.SubtaskCheckpointMetrics;
import io.weir.core.checkpoint.TaskId;
import io.weir.core.checkpoint.TaskStateSnapshot;
import io.weir.core.coordination.CheckpointResponder;
import io.weir.core.storage.CheckpointStorage;
import io.weir.core.storage.CheckpointStreamFactory;
import io.weir.api.FieldType;
import io.weir.api.Row;
import io.weir.api.RowSerializer;
import io.weir.api.Schema;
import io.weir.api.serialization.Serializers;
import io.weir.api.state.StateDescriptor;
import io.weir.api.state.ValueState;
import io.weir.core.state.AsyncSnapshot;
import io.weir.core.checkpoint.KeyGroupsStateHandle;
import io.weir.core.state.KeyHashVersion;
import io.weir.core.state.KeyGroupRange;
import io.weir.core.state.KeyedStateBackend;
import io.weir.core.state.KeyedStateBackendParameters;
import io.weir.state.heap.HeapStateBackend;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * An unaligned checkpoint aborted at a task while its in-flight input is being recorded (a newer
 * barrier subsumed it) is declined once, with the abort's reason, which is not counted. It used to
 * be declined first as CHECKPOINT_DECLINED (counted) by the recording's failure, so a healthy job
 * failed with "Exceeded checkpoint tolerable failure threshold".
 */
class SubsumedUnalignedCheckpointTest {
    @Test
    void checkpointSubsumedWhileRecordingInFlightDataIsDeclinedOnceAndNotCounted() {
        List<String> responses = new ArrayList<>();
        CheckpointResponder responder = new CheckpointResponder() {
            @Override
            public void acknowledgeCheckpoint(TaskId task, long checkpointId, SubtaskCheckpointMetrics metrics, TaskStateSnapshot state) {
                responses.add("ack " + checkpointId);
            }

            @Override
            public void declineCheckpoint(TaskId task, long checkpointId, CheckpointFailureReason reason, Throwable cause) {
                responses.add("decline " + checkpointId + " " + reason);
            }
        };
        CompletableFuture<RecordedInput> recording = new CompletableFuture<>();
        ChannelIO channels = recordingChannels(recording);
        SubtaskCheckpointCoordinator coordinator = new SubtaskCheckpointCoordinator("job", new TaskId("agg", 0, 0), List.of(),
                id -> { }, channels, new NoStorage(), responder, Runnable::run);
        CheckpointOptions unaligned = new CheckpointOptions(CheckpointAlignment.UNALIGNED, 0, false);

        coordinator.checkpointState(new CheckpointBarrier(4, 0, unaligned), new BarrierAlignment(0, 0, 0));
        // checkpoint 5's barrier arrives on a channel still being recorded for 4: the task aborts 4
        recording.completeExceptionally(new CheckpointException(CheckpointFailureReason.CHECKPOINT_SUBSUMED, "(test)", null));
        coordinator.abortCheckpoint(4, CheckpointFailureReason.CHECKPOINT_SUBSUMED);

        assertThat(responses).containsExactly("decline 4 CHECKPOINT_SUBSUMED");
        assertThat(CheckpointFailureReason.CHECKPOINT_SUBSUMED.isCounted()).isFalse();
    }

    /**
     * The snapshots a subsumed checkpoint took in its synchronous part are discarded, not left registered (a heap
     * snapshot's version, a RocksDB snapshot's lease): the real heap backend's snapshot, with its discard counted.
     */
    @Test
    void snapshotsOfACheckpointSubsumedBeforeItsAsynchronousPartAreDiscarded() throws Exception {
        Schema keySchema = Schema.builder().field("id", FieldType.LONG).build();
        HeapStateBackend heap = new HeapStateBackend();
        KeyedStateBackend real = heap.createKeyedStateBackend(new KeyedStateBackendParameters("job", "agg", 0, 128,
                new KeyGroupRange(0, 127), new RowSerializer(keySchema), List.of()));
        List<Long> discarded = new ArrayList<>();
        KeyedStateBackend keyed = new KeyedStateBackend() {
            @Override
            public <S> S getState(StateDescriptor<S> descriptor) {
                return real.getState(descriptor);
            }

            @Override
            public void setCurrentKey(Row key, int keyGroup) {
                real.setCurrentKey(key, keyGroup);
            }

            @Override
            public Row currentKey() {
                return real.currentKey();
            }

            @Override
            public KeyGroupRange keyGroupRange() {
                return real.keyGroupRange();
            }

            @Override
            public AsyncSnapshot<KeyGroupsStateHandle> snapshot(long checkpointId, CheckpointStreamFactory streams)
                    throws Exception {
                AsyncSnapshot<KeyGroupsStateHandle> taken = real.snapshot(checkpointId, streams);
                return new AsyncSnapshot<>() {
                    @Override
                    public KeyGroupsStateHandle write() throws Exception {
                        return taken.write();
                    }

                    @Override
                    public void discard() {
                        discarded.add(checkpointId);
                        taken.discard();
                    }
                };
            }

            @Override
            public void close() {
                real.close();
            }
        };
        ValueState<Long> count = keyed.getState(new StateDescriptor.Value<>("count", Serializers.LONG));
        Row key = new Row(keySchema, 5L);
        keyed.setCurrentKey(key, KeyHashVersion.LEGACY.keyGroupFor(key, 128));
        count.update(1L);
        CompletableFuture<RecordedInput> recording = new CompletableFuture<>();
        SubtaskCheckpointCoordinator coordinator = new SubtaskCheckpointCoordinator("job", new TaskId("agg", 0, 0),
                List.of(new SnapshotParticipant("agg", id -> { }, heap.createOperatorStateBackend("agg", List.of()), keyed,
                        new io.weir.api.operator.CheckpointListener() { })),
                id -> { }, recordingChannels(recording), new NoStorage(), new IgnoringResponder(), Runnable::run);

        coordinator.checkpointState(new CheckpointBarrier(4, 0, new CheckpointOptions(CheckpointAlignment.UNALIGNED, 0, false)),
                new BarrierAlignment(0, 0, 0));
        assertThat(discarded).isEmpty();
        recording.completeExceptionally(new CheckpointException(CheckpointFailureReason.CHECKPOINT_SUBSUMED, "(test)", null));
        coordinator.abortCheckpoint(4, CheckpointFailureReason.CHECKPOINT_SUBSUMED);

        assertThat(discarded).containsExactly(4L);
        assertThat(count.value()).isEqualTo(1L);
        keyed.close();
    }

    private static ChannelIO recordingChannels(CompletableFuture<RecordedInput> recording) {
        return new ChannelIO() {
            @Override
            public List<CompletableFuture<List<byte[]>>> broadcastBarrier(CheckpointBarrier barrier) {
                return List.of();
            }

            @Override
            public void broadcastEvent(Object event) {
            }

            @Override
            public CompletableFuture<RecordedInput> inputChannelState(long checkpointId) {
                return recording;
            }
        };
    }

    /** Drops every response. */
    private static final class IgnoringResponder implements CheckpointResponder {
        @Override
        public void acknowledgeCheckpoint(TaskId task, long checkpointId, SubtaskCheckpointMetrics metrics, TaskStateSnapshot state) {
        }

        @Override
        public void declineCheckpoint(TaskId task, long checkpointId, CheckpointFailureReason reason, Throwable cause) {
        }
    }

    /** Storage of a task with no operator state: only the location is resolved. */
    private static final class NoStorage implements CheckpointStorage {
        @Override
        public CheckpointStreamFactory initCheckpoint(long checkpointId) {
            return null;
        }

        @Override
        public CheckpointStreamFactory resolveCheckpoint(long checkpointId) {
            return null;
        }

        @Override
        public String finalizeCheckpoint(CheckpointMetadata metadata) {
            throw new UnsupportedOperationException();
        }

        @Override
        public CheckpointMetadata loadCheckpoint(String pointer) {
            throw new UnsupportedOperationException();
        }

        @Override
        public Optional<String> findLatestCompletedCheckpoint() {
            return Optional.empty();
        }

        @Override
        public void discardCheckpoint(long checkpointId) {
        }
    }
}
