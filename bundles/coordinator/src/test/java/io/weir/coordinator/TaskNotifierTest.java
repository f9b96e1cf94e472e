package io.weir.coordinator;

import io.weir.core.checkpoint.CheckpointOptions;
import io.weir.core.checkpoint.TaskId;
import io.weir.core.coordination.TaskCheckpointGateway;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class TaskNotifierTest {
    private final List<String> calls = new ArrayList<>();
    private final TaskNotifier notifier = new TaskNotifier("flight-delays");

    /** A task that records notifications and optionally throws on every one. */
    private TaskCheckpointGateway task(String vertex, boolean throwing) {
        TaskId id = new TaskId(vertex, 0, 0);
        return new TaskCheckpointGateway() {
            @Override
            public TaskId taskId() {
                return id;
            }

            @Override
            public boolean isSource() {
                return false;
            }

            @Override
            public boolean isRunning() {
                return true;
            }

            @Override
            public void triggerCheckpoint(long checkpointId, long timestamp, CheckpointOptions options) {
                throw new UnsupportedOperationException();
            }

            @Override
            public void notifyCheckpointComplete(long checkpointId) {
                calls.add("complete " + vertex + " " + checkpointId);
                if (throwing) {
                    throw new IllegalStateException("task " + id + " is gone");
                }
            }

            @Override
            public void notifyCheckpointAborted(long checkpointId) {
                calls.add("abort " + vertex + " " + checkpointId);
                if (throwing) {
                    throw new IllegalStateException("task " + id + " is gone");
                }
            }
        };
    }

    @Test
    void completionReachesEveryTaskInOrderEvenIfOneThrows() {
        notifier.notifyComplete(List.of(task("a", false), task("b", true), task("c", false)), 3);
        assertThat(calls).containsExactly("complete a 3", "complete b 3", "complete c 3");
    }

    @Test
    void abortReachesEveryTaskInOrderEvenIfOneThrows() {
        notifier.notifyAborted(List.of(task("a", true), task("b", false)), 4);
        assertThat(calls).containsExactly("abort a 4", "abort b 4");
    }
}
