package io.weir.coordinator;

import io.weir.core.checkpoint.CheckpointMetadata;
import io.weir.core.checkpoint.CheckpointOptions;
import io.weir.core.checkpoint.OperatorStateHandle;
import io.weir.core.checkpoint.OperatorSubtaskState;
import io.weir.core.checkpoint.StreamStateHandle;
import io.weir.core.checkpoint.SubtaskCheckpointMetrics;
import io.weir.core.checkpoint.TaskId;
import io.weir.core.checkpoint.TaskStateSnapshot;
import io.weir.core.coordination.CheckpointResponder;
import io.weir.core.coordination.CheckpointStatsListener;
import io.weir.core.coordination.CompletedCheckpointStats;
import io.weir.core.coordination.TaskCheckpointGateway;
import io.weir.core.checkpoint.CheckpointFailureReason;
import io.weir.core.storage.CheckpointStorage;
import io.weir.core.storage.CheckpointStreamFactory;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * Hand-written test doubles of the coordinator's SPIs: a job of two source and two map subtasks
 * whose tasks record every call in one shared event log (and can ack by themselves), an in-memory
 * checkpoint storage, and a stats listener. Thread-safe enough for the real-timer test.
 */
final class FakeJob {
    /** Every call on tasks and storage, in order: "trigger src#0 1", "complete map#1 1", "finalize 1", ... */
    final List<String> events = new CopyOnWriteArrayList<>();
    /** The current attempt's tasks; replaced as a whole on restart. */
    volatile List<FakeTask> tasks;
    final InMemoryStorage storage = new InMemoryStorage();
    final RecordingStats stats = new RecordingStats();
    final List<Throwable> jobFailures = new CopyOnWriteArrayList<>();
    /** Whether triggering the last source makes every task ack at once. */
    volatile boolean autoAck = true;
    volatile CheckpointResponder responder;

    FakeJob(int attempt) {
        tasks = List.of(new FakeTask(new TaskId("src", 0, attempt), true), new FakeTask(new TaskId("src", 1, attempt), true),
                new FakeTask(new TaskId("map", 0, attempt), false), new FakeTask(new TaskId("map", 1, attempt), false));
    }

    FakeTask task(String vertex, int subtask) {
        return tasks.stream().filter(t -> t.id.vertexId().equals(vertex) && t.id.subtaskIndex() == subtask)
                .findFirst().orElseThrow();
    }

    List<TaskCheckpointGateway> gateways() {
        return List.copyOf(tasks);
    }

    /** Replaces the tasks by a new attempt (a restart). */
    void restartAs(int attempt) {
        List<FakeTask> fresh = new ArrayList<>();
        for (FakeTask t : tasks) {
            fresh.add(new FakeTask(new TaskId(t.id.vertexId(), t.id.subtaskIndex(), attempt), t.source));
        }
        tasks = List.copyOf(fresh);
    }

    static SubtaskCheckpointMetrics metrics(long size) {
        return new SubtaskCheckpointMetrics(0, 1, 0, 1, 2, size, 0, 0, false);
    }

    static TaskStateSnapshot snapshotOf(TaskId task, int bytes) {
        OperatorStateHandle h = new OperatorStateHandle(Map.of(),
                new StreamStateHandle.ByteStreamStateHandle(new byte[bytes]));
        return new TaskStateSnapshot(Map.of(task.vertexId(), new OperatorSubtaskState(List.of(h), List.of())));
    }

    /** Acks {@code checkpointId} for {@code task} with 100 bytes of state. */
    void ack(TaskId task, long checkpointId) {
        responder.acknowledgeCheckpoint(task, checkpointId, metrics(100), snapshotOf(task, 100));
    }

    void ackAll(long checkpointId) {
        for (FakeTask t : tasks) {
            ack(t.id, checkpointId);
        }
    }

    long triggerCount(long checkpointId) {
        return events.stream().filter(e -> e.startsWith("trigger ") && e.endsWith(" " + checkpointId)).count();
    }

    List<String> eventsStartingWith(String prefix) {
        return events.stream().filter(e -> e.startsWith(prefix)).toList();
    }

    /** A task of the fake job. */
    final class FakeTask implements TaskCheckpointGateway {
        final TaskId id;
        final boolean source;
        volatile boolean running = true;
        volatile boolean failOnNotifyComplete;
        final List<CheckpointOptions> triggerOptions = new CopyOnWriteArrayList<>();
        final List<Long> triggerTimestamps = new CopyOnWriteArrayList<>();

        FakeTask(TaskId id, boolean source) {
            this.id = id;
            this.source = source;
        }

        private String name() {
            return id.vertexId() + "#" + id.subtaskIndex();
        }

        @Override
        public TaskId taskId() {
            return id;
        }

        @Override
        public boolean isSource() {
            return source;
        }

        @Override
        public boolean isRunning() {
            return running;
        }

        @Override
        public void triggerCheckpoint(long checkpointId, long timestamp, CheckpointOptions options) {
            events.add("trigger " + name() + " " + checkpointId);
            triggerOptions.add(options);
            triggerTimestamps.add(timestamp);
            long sourcesTriggered = triggerCount(checkpointId);
            if (autoAck && sourcesTriggered == tasks.stream().filter(t -> t.source).count()) {
                ackAll(checkpointId);
            }
        }

        @Override
        public void notifyCheckpointComplete(long checkpointId) {
            events.add("complete " + name() + " " + checkpointId);
            if (failOnNotifyComplete) {
                throw new IllegalStateException("task " + id + " is gone");
            }
        }

        @Override
        public void notifyCheckpointAborted(long checkpointId) {
            events.add("abort " + name() + " " + checkpointId);
        }
    }

    /** Checkpoint storage in memory. */
    final class InMemoryStorage implements CheckpointStorage {
        final Map<Long, CheckpointMetadata> finalized = new ConcurrentHashMap<>();
        /** Savepoints being taken: id → target directory. */
        final Map<Long, String> savepointTargets = new ConcurrentHashMap<>();
        /** Completed savepoints (outside the job's checkpoints): pointer → metadata. */
        final Map<String, CheckpointMetadata> savepoints = new ConcurrentHashMap<>();
        volatile boolean failFinalize;
        /** Savepoint records: id → pointer. */
        final Map<Long, String> records = new ConcurrentHashMap<>();

        @Override
        public void recordSavepoint(long checkpointId, String pointer) {
            events.add("record-savepoint " + checkpointId);
            records.put(checkpointId, pointer);
        }

        @Override
        public Optional<RecordedSavepoint> latestRecordedSavepoint() {
            return records.keySet().stream().max(Long::compare).map(id -> new RecordedSavepoint(id, records.get(id)));
        }

        @Override
        public CheckpointStreamFactory initSavepoint(long checkpointId, String targetDirectory) throws IOException {
            events.add("init-savepoint " + checkpointId + " " + targetDirectory);
            if (targetDirectory.startsWith("/read-only")) {
                throw new IOException("cannot create a directory under " + targetDirectory);
            }
            savepointTargets.put(checkpointId, targetDirectory);
            return null;
        }

        @Override
        public CheckpointStreamFactory initCheckpoint(long checkpointId) {
            events.add("init " + checkpointId);
            return null;
        }

        @Override
        public CheckpointStreamFactory resolveCheckpoint(long checkpointId) {
            return null;
        }

        @Override
        public String finalizeCheckpoint(CheckpointMetadata metadata) throws IOException {
            if (failFinalize) {
                events.add("finalize-failed " + metadata.checkpointId());
                throw new IOException("disk full writing chk-" + metadata.checkpointId() + "/_metadata");
            }
            events.add("finalize " + metadata.checkpointId());
            String target = savepointTargets.remove(metadata.checkpointId());
            if (target != null) {
                String pointer = target + "/savepoint-" + metadata.checkpointId();
                savepoints.put(pointer, metadata);
                return pointer;
            }
            finalized.put(metadata.checkpointId(), metadata);
            records.keySet().removeIf(id -> id < metadata.checkpointId());
            return "mem://chk-" + metadata.checkpointId();
        }

        @Override
        public CheckpointMetadata loadCheckpoint(String pointer) throws IOException {
            if (savepoints.containsKey(pointer)) {
                return savepoints.get(pointer);
            }
            if (!pointer.contains("chk-")) {
                throw new IOException("no _metadata at " + pointer);
            }
            long id = Long.parseLong(pointer.substring(pointer.indexOf("chk-") + 4));
            CheckpointMetadata m = finalized.get(id);
            if (m == null) {
                throw new IOException("no _metadata at " + pointer);
            }
            return m;
        }

        @Override
        public Optional<String> findLatestCompletedCheckpoint() {
            return finalized.keySet().stream().max(Long::compare).map(id -> "mem://chk-" + id);
        }

        @Override
        public List<String> findRetainedCheckpoints(int max) {
            return finalized.keySet().stream().sorted(java.util.Comparator.reverseOrder()).limit(max)
                    .map(id -> "mem://chk-" + id).toList();
        }

        @Override
        public void discardCheckpoint(long checkpointId) {
            events.add("discard " + checkpointId);
            finalized.remove(checkpointId);
            savepointTargets.remove(checkpointId);
        }

        @Override
        public void discardAllExcept(java.util.Set<Long> keep) {
            events.add("keep only " + new java.util.TreeSet<>(keep));
            finalized.keySet().retainAll(keep);
        }
    }

    /** Records what the coordinator reports. */
    static final class RecordingStats implements CheckpointStatsListener {
        final List<CompletedCheckpointStats> completed = Collections.synchronizedList(new ArrayList<>());
        final List<String> failed = Collections.synchronizedList(new ArrayList<>());

        @Override
        public void onCompleted(CompletedCheckpointStats stats) {
            completed.add(stats);
        }

        @Override
        public void onFailed(long checkpointId, CheckpointFailureReason reason, Throwable cause) {
            failed.add(checkpointId + " " + reason);
        }

        List<Long> completedIds() {
            return completed.stream().map(CompletedCheckpointStats::checkpointId).toList();
        }
    }
}
