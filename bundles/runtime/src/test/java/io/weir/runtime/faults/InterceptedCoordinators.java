package io.weir.runtime.faults;

import io.weir.core.checkpoint.CheckpointFailureReason;
import io.weir.core.checkpoint.CheckpointMetadata;
import io.weir.core.checkpoint.CompletedCheckpoint;
import io.weir.core.checkpoint.SubtaskCheckpointMetrics;
import io.weir.core.checkpoint.TaskId;
import io.weir.core.checkpoint.TaskStateSnapshot;
import io.weir.core.coordination.CheckpointCoordinatorContext;
import io.weir.core.coordination.CheckpointCoordinatorFactory;
import io.weir.core.coordination.CheckpointCoordinatorGateway;
import io.weir.core.coordination.CheckpointTriggerKind;
import io.weir.core.storage.CheckpointStorage;
import io.weir.core.storage.CheckpointStreamFactory;
import io.weir.runtime.engine.EngineServices;
import io.weir.runtime.engine.LocalEngine;

import java.io.IOException;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

/**
 * Wraps the real checkpoint coordinator of every job so that a test can act at named points of the
 * checkpoint protocol: while {@code _metadata} is being written, when a checkpoint location is
 * created, when a task's ack is on its way to the coordinator, when the job master asks for the
 * restore point. At each point the test may fail the job over (through the coordinator's real
 * {@code failJob} path, as the failure manager does) or hold the calling thread.
 */
public final class InterceptedCoordinators implements CheckpointCoordinatorFactory {
    /** The named points; every method runs on the thread that reached the point. */
    public interface Hooks {
        /** The coordinator is about to write {@code _metadata} (timer thread). */
        default void beforeMetadataWritten(CheckpointMetadata metadata, Consumer<String> failJob) {
        }

        /** {@code _metadata} is durable; the checkpoint is not yet in the store, no task is notified yet. */
        default void afterMetadataWritten(CheckpointMetadata metadata, Consumer<String> failJob) {
        }

        /** The coordinator creates the location of {@code checkpointId} (timer thread). */
        default void onInitCheckpoint(long checkpointId, Consumer<String> failJob) {
        }

        /** {@code task} sends its ack of {@code checkpointId} (task or async-snapshot thread), before it is queued. */
        default void onAck(TaskId task, long checkpointId, Consumer<String> failJob) {
        }

        /** The job master asked for the restore point; the request is queued on the coordinator. */
        default void afterRestoreRequested(Consumer<String> failJob) {
        }
    }

    private final CheckpointCoordinatorFactory delegate;
    private final Hooks hooks;
    /** The tasks of the current attempt of the job created last. */
    private volatile java.util.function.Supplier<List<io.weir.core.coordination.TaskCheckpointGateway>> tasks = List::of;

    /**
     * @param delegate the real factory
     * @param hooks what to do at each point
     */
    public InterceptedCoordinators(CheckpointCoordinatorFactory delegate, Hooks hooks) {
        this.delegate = delegate;
        this.hooks = hooks;
    }

    /** @return an engine like {@code base}'s, sharing its services (close only {@code base}) but with intercepted coordinators */
    public static LocalEngine engine(LocalEngine base, Hooks hooks) {
        EngineServices s = base.services();
        return new LocalEngine(new EngineServices(s.plugins(), s.stateBackends(), s.storage(), s.barrierHandlers(),
                new InterceptedCoordinators(s.coordinators(), hooks), s.recovery(), s.asyncOperations(), s.timers()));
    }

    /** @return the tasks of the current attempt of the job created last (empty while none is deployed) */
    public List<io.weir.core.coordination.TaskCheckpointGateway> currentTasks() {
        return tasks.get();
    }

    /** @return the factory of {@code engine}, if it was made by {@link #engine} */
    public static InterceptedCoordinators of(LocalEngine engine) {
        return (InterceptedCoordinators) engine.services().coordinators();
    }

    @Override
    public CheckpointCoordinatorGateway create(CheckpointCoordinatorContext c) {
        tasks = c.tasks();
        Consumer<String> failJob = where -> c.failJob().accept(new IllegalStateException("injected failure " + where));
        CheckpointStorage storage = new InterceptedStorage(c.storage(), failJob);
        CheckpointCoordinatorGateway real = delegate.create(new CheckpointCoordinatorContext(c.jobName(), c.config(),
                c.operators(), c.tasks(), storage, c.idCounter(), c.store(), c.masterHooks(), c.failJob(), c.statsListener()));
        return new InterceptedGateway(real, failJob);
    }

    private final class InterceptedGateway implements CheckpointCoordinatorGateway {
        private final CheckpointCoordinatorGateway real;
        private final Consumer<String> failJob;

        InterceptedGateway(CheckpointCoordinatorGateway real, Consumer<String> failJob) {
            this.real = real;
            this.failJob = failJob;
        }

        @Override
        public void acknowledgeCheckpoint(TaskId task, long checkpointId, SubtaskCheckpointMetrics metrics, TaskStateSnapshot state) {
            hooks.onAck(task, checkpointId, failJob);
            real.acknowledgeCheckpoint(task, checkpointId, metrics, state);
        }

        @Override
        public void declineCheckpoint(TaskId task, long checkpointId, CheckpointFailureReason reason, Throwable cause) {
            real.declineCheckpoint(task, checkpointId, reason, cause);
        }

        @Override
        public void startCheckpointScheduler() {
            real.startCheckpointScheduler();
        }

        @Override
        public void stopCheckpointScheduler() {
            real.stopCheckpointScheduler();
        }

        @Override
        public CompletableFuture<CompletedCheckpoint> triggerCheckpoint(CheckpointTriggerKind kind) {
            return real.triggerCheckpoint(kind);
        }

        @Override
        public void abortPendingCheckpoints(CheckpointFailureReason reason) {
            real.abortPendingCheckpoints(reason);
        }

        @Override
        public CompletableFuture<Optional<CompletedCheckpoint>> restoreLatestCheckpoint(CheckpointFailureReason reason) {
            CompletableFuture<Optional<CompletedCheckpoint>> f = real.restoreLatestCheckpoint(reason);
            hooks.afterRestoreRequested(failJob);
            return f;
        }

        @Override
        public void shutdown() {
            real.shutdown();
        }
    }

    private final class InterceptedStorage implements CheckpointStorage {
        private final CheckpointStorage real;
        private final Consumer<String> failJob;

        InterceptedStorage(CheckpointStorage real, Consumer<String> failJob) {
            this.real = real;
            this.failJob = failJob;
        }

        @Override
        public CheckpointStreamFactory initCheckpoint(long checkpointId) throws IOException {
            hooks.onInitCheckpoint(checkpointId, failJob);
            return real.initCheckpoint(checkpointId);
        }

        @Override
        public CheckpointStreamFactory resolveCheckpoint(long checkpointId) {
            return real.resolveCheckpoint(checkpointId);
        }

        @Override
        public String finalizeCheckpoint(CheckpointMetadata metadata) throws IOException {
            hooks.beforeMetadataWritten(metadata, failJob);
            String pointer = real.finalizeCheckpoint(metadata);
            hooks.afterMetadataWritten(metadata, failJob);
            return pointer;
        }

        @Override
        public CheckpointMetadata loadCheckpoint(String pointer) throws IOException {
            return real.loadCheckpoint(pointer);
        }

        @Override
        public Optional<String> findLatestCompletedCheckpoint() throws IOException {
            return real.findLatestCompletedCheckpoint();
        }

        @Override
        public List<String> findRetainedCheckpoints(int max) throws IOException {
            return real.findRetainedCheckpoints(max);
        }

        @Override
        public void discardCheckpoint(long checkpointId) throws IOException {
            real.discardCheckpoint(checkpointId);
        }
    }
}
