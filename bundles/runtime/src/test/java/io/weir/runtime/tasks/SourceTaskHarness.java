package io.weir.runtime.tasks;

import io.weir.api.FieldType;
import io.weir.api.Schema;
import io.weir.api.operator.OperatorContext;
import io.weir.api.operator.Output;
import io.weir.api.plugin.PluginConfig;
import io.weir.api.plugin.SourceFactory;
import io.weir.api.source.PollStatus;
import io.weir.api.source.SourceReader;
import io.weir.core.checkpoint.CheckpointFailureReason;
import io.weir.core.checkpoint.CheckpointOptions;
import io.weir.core.checkpoint.SubtaskCheckpointMetrics;
import io.weir.core.checkpoint.TaskId;
import io.weir.core.checkpoint.TaskStateSnapshot;
import io.weir.core.config.Configuration;
import io.weir.core.coordination.CheckpointResponder;
import io.weir.core.job.JobVertex;
import io.weir.core.job.VertexKind;
import io.weir.core.plugin.MapPluginRegistry;
import io.weir.state.heap.HeapStateBackend;
import io.weir.storage.fs.FsCheckpointStorage;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ScheduledExecutorService;

/**
 * A real {@link SourceStreamTask} (one source, no operators, no outputs) driven like the job
 * master drives it: when the task reports its input finished the harness triggers final
 * checkpoint 1, and the task's acknowledgement notifies its completion. The test injects behaviour
 * at named points ({@link Hooks}) and reads every listener call from {@link #events()}.
 */
final class SourceTaskHarness {
    /** What the test injects; every default is the normal behaviour. Each hook runs on the thread named. */
    static class Hooks {
        /** Task thread, while deploying (the reader's initializeState). */
        void onDeploy() throws Exception {
        }

        /** Task thread, per poll; the default ends the input at once. */
        PollStatus onPoll() throws Exception {
            return PollStatus.END_OF_INPUT;
        }

        /** Task thread, while the final checkpoint is delivered to the reader (a sink would commit here). */
        void onCheckpointComplete(long checkpointId) throws Exception {
        }

        /** Task thread, in the listener's onFinished. */
        void onFinishedReported() {
        }

        /** Task thread, in the listener's onFailed. */
        void onFailedReported() {
        }
    }

    private static final Schema SCHEMA = Schema.builder().field("n", FieldType.LONG).build();

    private final List<String> events = java.util.Collections.synchronizedList(new ArrayList<>());
    private final StreamTask task;
    private Thread thread;

    /**
     * @param checkpointDir a fresh directory for this harness's checkpoint files
     * @param timers engine timers (unused by a source without outputs, required by the task)
     */
    SourceTaskHarness(Path checkpointDir, ScheduledExecutorService timers, Hooks hooks) throws Exception {
        MapPluginRegistry plugins = new MapPluginRegistry();
        plugins.addSource(new ScriptedSourceFactory(hooks));
        PluginConfig config = new PluginConfig("operators[0].config", Map.of(), checkpointDir);
        JobVertex source = new JobVertex("src", VertexKind.SOURCE, "scripted", 1, config, null, SCHEMA, false);
        TaskDeployment deployment = new TaskDeployment("job", new TaskId("src", 0, 0), List.of(source), Configuration.empty(),
                Map.of(), false, null, null, null, List.of(), null);
        StreamTask[] self = new StreamTask[1];
        CheckpointResponder responder = new CheckpointResponder() {
            @Override
            public void acknowledgeCheckpoint(TaskId t, long checkpointId, SubtaskCheckpointMetrics metrics, TaskStateSnapshot state) {
                events.add("ack " + checkpointId);
                self[0].notifyCheckpointComplete(checkpointId);
            }

            @Override
            public void declineCheckpoint(TaskId t, long checkpointId, CheckpointFailureReason reason, Throwable cause) {
                events.add("decline " + checkpointId + " " + reason);
            }
        };
        TaskListener listener = new TaskListener() {
            @Override
            public void onRunning(TaskId t) {
                events.add("running");
            }

            @Override
            public void onFinishedData(TaskId t) {
                events.add("finishedData");
                self[0].triggerCheckpoint(1, System.currentTimeMillis(), CheckpointOptions.aligned().asFinal());
            }

            @Override
            public void onFinished(TaskId t) {
                events.add("finished");
                hooks.onFinishedReported();
            }

            @Override
            public void onFailed(TaskId t, Throwable cause) {
                events.add("failed: " + cause.getMessage());
                hooks.onFailedReported();
            }
        };
        TaskServices services = new TaskServices(plugins, new HeapStateBackend(), new FsCheckpointStorage(checkpointDir, "job"),
                responder, null, Runnable::run, listener, timers);
        task = new SourceStreamTask(deployment, services);
        self[0] = task;
    }

    StreamTask task() {
        return task;
    }

    /** Starts the task thread. */
    SourceTaskHarness start() {
        thread = new Thread(task, "harness-task");
        thread.setDaemon(true);
        thread.start();
        return this;
    }

    /** Waits for the task thread to end; fails the test if it does not within 10 s. */
    void awaitEnd() throws InterruptedException {
        thread.join(10_000);
        if (thread.isAlive()) {
            throw new AssertionError("task thread did not end within 10 s; state " + task.state());
        }
    }

    /** @return a snapshot of the listener calls and acks, in order */
    List<String> events() {
        synchronized (events) {
            return List.copyOf(events);
        }
    }

    /** @return the listener calls among {@link #events()} that report a terminal state */
    List<String> terminalReports() {
        return events().stream().filter(e -> e.equals("finished") || e.startsWith("failed")).toList();
    }

    private record ScriptedSourceFactory(Hooks hooks) implements SourceFactory {
        @Override
        public String type() {
            return "scripted";
        }

        @Override
        public Schema outputSchema(PluginConfig config) {
            return SCHEMA;
        }

        @Override
        public boolean isBounded(PluginConfig config) {
            return true;
        }

        @Override
        public SourceReader create(PluginConfig config, Schema output) {
            return new SourceReader() {
                @Override
                public void initializeState(OperatorContext context) throws Exception {
                    hooks.onDeploy();
                }

                @Override
                public PollStatus pollNext(Output out) throws Exception {
                    return hooks.onPoll();
                }

                @Override
                public void snapshotState(long checkpointId) {
                }

                @Override
                public void notifyCheckpointComplete(long checkpointId) throws Exception {
                    hooks.onCheckpointComplete(checkpointId);
                }
            };
        }
    }
}
