package io.weir.coordinator;

import io.weir.core.checkpoint.CheckpointException;
import io.weir.core.checkpoint.CheckpointFailureReason;
import io.weir.core.checkpoint.CompletedCheckpoint;
import io.weir.core.checkpoint.SubtaskCheckpointMetrics;
import io.weir.core.checkpoint.TaskId;
import io.weir.core.checkpoint.TaskStateSnapshot;
import io.weir.core.coordination.CheckpointCoordinatorContext;
import io.weir.core.coordination.CheckpointCoordinatorGateway;
import io.weir.core.coordination.CheckpointTriggerKind;
import io.weir.core.coordination.TaskCheckpointGateway;
import io.weir.core.ha.CheckpointPossiblyStoredException;
import io.weir.core.state.KeyHashVersion;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;

/**
 * The job-manager side of checkpointing of one job (PROTOCOL.md §2): runs the trigger pipeline and
 * carries each checkpoint to completion or abort, delegating every other job to one collaborator:
 * when to trigger ({@link CheckpointScheduler}, {@link CheckpointRequestDecider}), ack bookkeeping
 * ({@link PendingCheckpoints}, {@link PendingCheckpoint}, {@link AckRouter}), {@code _metadata}
 * ({@link CheckpointFinalizer}), failure accounting ({@link CheckpointFailureManager}), stats
 * ({@link CheckpointStatsTracker}), task notifications ({@link TaskNotifier}), discarding locations
 * ({@link CheckpointLocationDiscarder}) and restore ({@link CheckpointRestorer}).
 *
 * <p>Trigger pipeline, in order: {@link CheckpointRequestDecider} → {@link CheckpointPlan} (any task
 * not running fails the trigger with NOT_ALL_REQUIRED_TASKS_RUNNING, not counted) → id from the
 * {@code CheckpointIDCounter} → {@link PendingCheckpoint} and its timeout
 * ({@code execution.checkpointing.timeout}) → {@code storage.initCheckpoint} → master hooks (all must
 * complete; the timeout covers them) → trigger RPCs to the source tasks.
 *
 * <p>Threading: every public method may be called from any thread and returns without waiting; the
 * work runs on the single {@link CheckpointTimer} thread (submitted through {@link GuardedTimer}),
 * which owns all mutable state here and in the collaborators. No lock is ever held while calling
 * tasks, storage, hooks, the store or the runtime's callbacks, so those may call back into the
 * coordinator.
 */
public final class CheckpointCoordinator implements CheckpointCoordinatorGateway {
    private static final Logger LOG = LoggerFactory.getLogger(CheckpointCoordinator.class);

    /** Manual/final requests that may wait for room at once. */
    static final int MAX_QUEUED_REQUESTS = 8;
    /** Aborted/expired (and completed) ids remembered to recognise late acks. */
    static final int RECENT_IDS = 16;
    private static final long SHUTDOWN_WAIT_MS = 10_000;

    private final CheckpointCoordinatorContext context;
    private final String jobName;
    private final CheckpointCoordinatorConfig config;
    private final CheckpointTimer timer;
    /** Thread-safe; its shut-down flag is set once by {@link #shutdown()} and read by any thread. */
    private final GuardedTimer guardedTimer;
    private final CheckpointFinalizer finalizer;
    private final CheckpointStatsTracker stats;
    private final TaskNotifier notifier;
    private final CheckpointLocationDiscarder discarder;
    private final CheckpointRestorer restorer;

    /** Timer thread only. */
    private final CheckpointScheduler scheduler;
    /** Timer thread only. */
    private final CheckpointFailureManager failureManager;
    /** Pending checkpoints and recently finished ids. Timer thread only. */
    private final PendingCheckpoints pending = new PendingCheckpoints(RECENT_IDS);
    /** Timer thread only (reads and records acks on {@link #pending}). */
    private final AckRouter ackRouter;
    /**
     * How the running attempt places keys, recorded in every checkpoint it completes: that of the checkpoint the
     * attempt restored from, {@link KeyHashVersion#CURRENT} for a fresh start (the runtime decides the same way
     * from the same {@link #restoreLatestCheckpoint} result). Timer thread only.
     */
    private KeyHashVersion keyHashVersion = KeyHashVersion.CURRENT;

    /**
     * @param context what the runtime provides for this job
     * @param timer the coordinator's thread and clock
     * @throws IllegalArgumentException if a checkpointing option is out of range, naming its key
     */
    public CheckpointCoordinator(CheckpointCoordinatorContext context, CheckpointTimer timer) {
        this.context = Objects.requireNonNull(context, "context");
        this.timer = Objects.requireNonNull(timer, "timer");
        this.jobName = context.jobName();
        this.config = CheckpointCoordinatorConfig.from(context.config());
        this.guardedTimer = new GuardedTimer(timer, jobName);
        this.scheduler = new CheckpointScheduler(jobName, config.intervalMs(), guardedTimer,
                new CheckpointRequestDecider(config.maxConcurrent(), config.minPauseMs(), MAX_QUEUED_REQUESTS),
                pending::size, this::startCheckpoint);
        this.failureManager = new CheckpointFailureManager(jobName, config.tolerableFailed(),
                Objects.requireNonNull(context.failJob(), "failJob"));
        this.finalizer = new CheckpointFinalizer(jobName, context.operators(), context.storage(), timer::now);
        this.stats = new CheckpointStatsTracker(jobName, context.statsListener());
        this.notifier = new TaskNotifier(jobName);
        this.discarder = new CheckpointLocationDiscarder(jobName, context.storage());
        this.restorer = new CheckpointRestorer(jobName, context.store(), context.storage(), context.idCounter(), discarder,
                context.masterHooks(), InitialRestore.from(context.config(), context.operators()));
        this.ackRouter = new AckRouter(jobName, pending);
    }

    // ---------------------------------------------------------------- public API (any thread)

    @Override
    public void startCheckpointScheduler() {
        if (!config.isPeriodic()) {
            LOG.info("Periodic checkpoints are off for job {} ({} is not set)", jobName,
                    io.weir.core.config.CheckpointingOptions.INTERVAL.key());
            return;
        }
        runOnTimer("starting the checkpoint scheduler", scheduler::start);
    }

    @Override
    public void stopCheckpointScheduler() {
        runOnTimer("stopping the checkpoint scheduler", scheduler::stop);
    }

    @Override
    public CompletableFuture<CompletedCheckpoint> triggerCheckpoint(CheckpointTriggerKind kind) {
        Objects.requireNonNull(kind, "kind");
        CompletableFuture<CompletedCheckpoint> result = new CompletableFuture<>();
        if (!runOnTimer("handling a " + kind + " checkpoint request",
                () -> scheduler.submit(new CheckpointRequest(kind, timer.now(), result)))) {
            result.completeExceptionally(new CheckpointException(CheckpointFailureReason.JOB_SHUTTING_DOWN,
                    "The checkpoint coordinator of job " + jobName + " is shut down.", null));
        }
        return result;
    }

    /** {@inheritDoc} */
    @Override
    public CompletableFuture<CompletedCheckpoint> triggerSavepoint(String targetDirectory, boolean terminate) {
        Objects.requireNonNull(targetDirectory, "targetDirectory");
        CompletableFuture<CompletedCheckpoint> result = new CompletableFuture<>();
        if (!runOnTimer("handling a savepoint request", () -> scheduler.submit(new CheckpointRequest(
                CheckpointTriggerKind.SAVEPOINT, timer.now(), result, targetDirectory, terminate)))) {
            result.completeExceptionally(new CheckpointException(CheckpointFailureReason.JOB_SHUTTING_DOWN,
                    "The checkpoint coordinator of job " + jobName + " is shut down.", null));
        }
        return result;
    }

    @Override
    public void acknowledgeCheckpoint(TaskId task, long checkpointId, SubtaskCheckpointMetrics metrics,
            TaskStateSnapshot state) {
        runOnTimer("handling the ack of " + task + " for checkpoint " + checkpointId,
                () -> follow(ackRouter.onAcknowledge(task, checkpointId, metrics, state)));
    }

    @Override
    public void declineCheckpoint(TaskId task, long checkpointId, CheckpointFailureReason reason, Throwable cause) {
        runOnTimer("handling the decline of " + task + " for checkpoint " + checkpointId,
                () -> follow(ackRouter.onDecline(task, checkpointId, reason, cause)));
    }

    /**
     * {@inheritDoc}
     * <p>Acks that arrive later for the aborted checkpoints are late acks. The periodic scheduler keeps
     * running.
     */
    @Override
    public void abortPendingCheckpoints(CheckpointFailureReason reason) {
        Objects.requireNonNull(reason, "reason");
        runOnTimer("aborting pending checkpoints", () -> abortPendingAndQueued(reason));
    }

    /**
     * {@inheritDoc}
     * <p>Runs as one task on the timer thread, which is the only thread that completes, aborts or
     * subsumes checkpoints: a completion queued before this call (the last ack of checkpoint N) is
     * finished first and N is chosen; an ack queued after it finds N aborted.
     */
    @Override
    public CompletableFuture<Optional<CompletedCheckpoint>> restoreLatestCheckpoint(CheckpointFailureReason reason) {
        Objects.requireNonNull(reason, "reason");
        CompletableFuture<Optional<CompletedCheckpoint>> result = new CompletableFuture<>();
        boolean submitted = runOnTimer("restoring the latest checkpoint", () -> {
            try {
                scheduler.stop();
                abortPendingAndQueued(reason);
                Optional<CompletedCheckpoint> restored = restorer.restoreLatest();
                keyHashVersion = restored.map(cp -> cp.metadata().keyHashVersion()).orElse(KeyHashVersion.CURRENT);
                result.complete(restored);
            } catch (Throwable t) {
                result.completeExceptionally(t);
            }
        });
        if (!submitted) {
            result.completeExceptionally(new CheckpointException(CheckpointFailureReason.JOB_SHUTTING_DOWN,
                    "The checkpoint coordinator of job " + jobName + " is shut down.", null));
        }
        return result;
    }

    /**
     * {@inheritDoc}
     * <p>Pending checkpoints are aborted with JOB_SHUTTING_DOWN (not counted), queued requests fail
     * with it. Waits up to 10 s for the timer thread to stop, unless called on it.
     */
    @Override
    public void shutdown() {
        if (!guardedTimer.markShutDown()) {
            return;
        }
        try {
            timer.execute(guardedTimer.guarded("shutting down", () -> {
                scheduler.stop();
                abortPendingAndQueued(CheckpointFailureReason.JOB_SHUTTING_DOWN);
            }));
        } catch (RejectedExecutionException alreadyStopped) {
            LOG.debug("Checkpoint timer of job {} already stopped", jobName);
        }
        timer.shutdown();
        if (!timer.isTimerThread()) {
            try {
                if (!timer.awaitTermination(SHUTDOWN_WAIT_MS)) {
                    LOG.warn("Checkpoint timer of job {} did not stop within {} ms", jobName, SHUTDOWN_WAIT_MS);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        LOG.info("Checkpoint coordinator of job {} shut down", jobName);
    }

    // ---------------------------------------------------------------- trigger pipeline (timer thread)

    private void startCheckpoint(CheckpointRequest request) {
        if (guardedTimer.isShutDown()) {
            request.result().completeExceptionally(new CheckpointException(CheckpointFailureReason.JOB_SHUTTING_DOWN,
                    "The checkpoint coordinator of job " + jobName + " is shut down.", null));
            return;
        }
        CheckpointPlan plan;
        try {
            plan = CheckpointPlan.calculate(jobName, context.tasks().get());
        } catch (CheckpointException e) {
            LOG.info("Not triggering a {} checkpoint for job {}: {}", request.kind(), jobName, e.getMessage());
            request.result().completeExceptionally(e);
            return;
        }
        long id;
        try {
            id = context.idCounter().getAndIncrement();
        } catch (Exception e) {
            CheckpointException ce = new CheckpointException(CheckpointFailureReason.IO_EXCEPTION,
                    "Could not get a checkpoint id for job " + jobName + ".", e);
            LOG.warn("Not triggering a {} checkpoint for job {}: the checkpoint id counter failed", request.kind(), jobName, e);
            request.result().completeExceptionally(ce);
            failureManager.onTriggerFailure(ce.reason(), ce);
            return;
        }
        long timestamp = timer.now();
        PendingCheckpoint p = new PendingCheckpoint(id, timestamp, request, plan, config.optionsFor(request));
        pending.add(p);
        p.setTimeoutCanceller(guardedTimer.schedule("expiring checkpoint " + id, () -> onTimeout(p), config.timeoutMs()));
        LOG.info("Triggering checkpoint {} for job {} ({}, {}{}, {} source tasks, {} tasks)", id, jobName, request.kind(),
                p.options().alignment(), p.options().isFinal() ? ", final" : "", plan.tasksToTrigger().size(),
                plan.tasksToWaitFor().size());
        try {
            if (request.isSavepoint()) {
                context.storage().initSavepoint(id, request.savepointDirectory());
            } else {
                context.storage().initCheckpoint(id);
            }
        } catch (IOException | RuntimeException e) {
            abort(p, CheckpointFailureReason.IO_EXCEPTION, new IOException("cannot create the location of "
                    + (request.isSavepoint() ? "savepoint " : "checkpoint ") + id + " of job " + jobName + ": " + e.getMessage(), e));
            return;
        }
        if (context.masterHooks().isEmpty()) {
            triggerTasks(p);
            return;
        }
        MasterHookSnapshotter.snapshot(context.masterHooks(), jobName, id, timestamp).whenComplete((states, error) ->
                runOnTimer("finishing the master hooks of checkpoint " + id, () -> onMasterHooksDone(p, states, error)));
    }

    private void onMasterHooksDone(PendingCheckpoint p, Map<String, byte[]> states, Throwable error) {
        if (p.isDisposed()) {
            LOG.debug("Master hooks of checkpoint {} for job {} finished after it was {}; ignoring their result",
                    p.checkpointId(), jobName, p.state());
            return;
        }
        if (error != null) {
            abort(p, CheckpointFailureReason.CHECKPOINT_DECLINED, error);
            return;
        }
        p.setMasterStates(states);
        triggerTasks(p);
    }

    private void triggerTasks(PendingCheckpoint p) {
        p.transitionTo(PendingCheckpoint.State.TRIGGERED);
        for (TaskCheckpointGateway task : p.plan().tasksToTrigger()) {
            try {
                task.triggerCheckpoint(p.checkpointId(), p.triggerTimestamp(), p.options());
            } catch (RuntimeException e) {
                abort(p, CheckpointFailureReason.CHECKPOINT_DECLINED, new IllegalStateException(
                        "could not trigger checkpoint " + p.checkpointId() + " of job " + jobName + " on task " + task.taskId(), e));
                return;
            }
        }
    }

    // ---------------------------------------------------------------- acks and declines (timer thread)

    /** Carries out what the {@link AckRouter} decided. */
    private void follow(AckRouter.Route route) {
        if (route instanceof AckRouter.Complete c) {
            complete(c.checkpoint());
        } else if (route instanceof AckRouter.Abort a) {
            abort(a.checkpoint(), a.reason(), a.cause());
        } else if (route instanceof AckRouter.DiscardLateState d) {
            discarder.discard(d.checkpointId());
        }
    }

    private void onTimeout(PendingCheckpoint p) {
        if (p.isDisposed()) {
            return;
        }
        LOG.info("Checkpoint {} of job {} expired after {} ms; not yet acknowledged by {}{}", p.checkpointId(), jobName,
                config.timeoutMs(), p.notYetAcknowledgedTasks(),
                p.state() == PendingCheckpoint.State.TRIGGERING ? " (master hooks still running)" : "");
        abort(p, CheckpointFailureReason.CHECKPOINT_EXPIRED, null);
    }

    // ---------------------------------------------------------------- completion and abort (timer thread)

    private void complete(PendingCheckpoint p) {
        long id = p.checkpointId();
        CompletedCheckpoint cp;
        try {
            cp = finalizer.finalizeCheckpoint(p, keyHashVersion);
        } catch (IOException e) {
            abort(p, CheckpointFailureReason.IO_EXCEPTION, e);
            return;
        } catch (RuntimeException e) {
            abort(p, CheckpointFailureReason.FINALIZE_CHECKPOINT_FAILURE, e);
            return;
        }
        try {
            if (p.request().isSavepoint()) {
                // never in the store: never subsumed or discarded, not counted in num-retained; but the restore point
                // until a newer checkpoint completes (its output may be committed on the notify below), in this run
                // and, through the record in the job's directory, in the next
                context.storage().recordSavepoint(id, cp.externalPointer());
                restorer.savepointCompleted(cp);
            } else {
                discarder.addToStore(context.store(), cp);
            }
        } catch (CheckpointPossiblyStoredException e) {
            // another owner may restore from it (a fenced former owner whose write was applied): commit nothing, delete nothing
            LOG.warn("Checkpoint {} of job {} does not complete in this run, and its files are kept (the store may hold it): {}",
                    id, jobName, e.getMessage());
            abort(p, CheckpointFailureReason.FINALIZE_CHECKPOINT_FAILURE, e, false);
            return;
        } catch (Exception e) {
            abort(p, CheckpointFailureReason.FINALIZE_CHECKPOINT_FAILURE, new IllegalStateException(
                    "cannot add checkpoint " + id + " of job " + jobName + " to the completed checkpoint store", e));
            return;
        }
        p.transitionTo(PendingCheckpoint.State.COMPLETED);
        pending.removeCompleted(id);
        p.cancelTimeout();
        scheduler.checkpointCompleted(timer.now());
        failureManager.onCheckpointSuccess(id);
        var s = stats.reportCompleted(p, cp);
        if (p.request().isSavepoint()) {
            LOG.info("Completed savepoint {} for job {} at {} ({} bytes, {} ms)", id, jobName, cp.externalPointer(),
                    s.checkpointedSizeBytes(), s.endToEndDurationMs());
        } else {
            LOG.info("Completed checkpoint {} for job {} ({} bytes, {} ms)", id, jobName, s.checkpointedSizeBytes(),
                    s.endToEndDurationMs());
        }
        // A newer completed checkpoint subsumes older pending ones (and the store accepts only newer ids).
        for (PendingCheckpoint older : pending.olderThan(id)) {
            abort(older, CheckpointFailureReason.CHECKPOINT_SUBSUMED, null);
        }
        if (p.options().isFinal() && config.finalNotifyDelayMs() > 0) {
            LOG.warn("Notifying the tasks of final checkpoint {} of job {} in {} ms ({})", id, jobName,
                    config.finalNotifyDelayMs(), io.weir.core.config.ExecutionOptions.INJECT_DELAY_FINAL_NOTIFY.key());
            guardedTimer.schedule("notifying final checkpoint " + id,
                    () -> notifier.notifyComplete(p.plan().tasksToCommit(), id), config.finalNotifyDelayMs());
        } else {
            notifier.notifyComplete(p.plan().tasksToCommit(), id);
        }
        p.request().result().complete(cp);
        scheduler.pollQueue();
    }

    /**
     * Fails every queued request, then aborts every pending checkpoint, with {@code reason}. The queue
     * is drained first: aborting frees room, which would otherwise start a queued request.
     */
    private void abortPendingAndQueued(CheckpointFailureReason reason) {
        List<CheckpointRequest> queued = scheduler.drainQueue();
        if (!queued.isEmpty() || !pending.isEmpty()) {
            LOG.info("Aborting {} pending checkpoints and {} queued checkpoint requests of job {}: {}", pending.size(),
                    queued.size(), jobName, reason.message());
        }
        for (CheckpointRequest r : queued) {
            r.result().completeExceptionally(new CheckpointException(reason, "(queued " + r.kind()
                    + " checkpoint request of job " + jobName + ")", null));
        }
        for (PendingCheckpoint p : pending.all()) {
            abort(p, reason, null);
        }
    }

    private void abort(PendingCheckpoint p, CheckpointFailureReason reason, Throwable cause) {
        abort(p, reason, cause, true);
    }

    /** @param discardFiles false when the checkpoint's files may still be referenced (a store that may hold it) */
    private void abort(PendingCheckpoint p, CheckpointFailureReason reason, Throwable cause, boolean discardFiles) {
        if (p.isDisposed()) {
            return;
        }
        long id = p.checkpointId();
        p.transitionTo(PendingCheckpoint.State.ABORTED);
        pending.removeAborted(id);
        p.cancelTimeout();
        if (reason.isCounted()) {
            LOG.warn("Checkpoint {} of job {} failed: {}", id, jobName, reason.message(), cause);
        } else {
            LOG.info("Checkpoint {} of job {} aborted: {}", id, jobName, reason.message());
        }
        if (discardFiles) {
            discarder.discard(id);
        }
        notifier.notifyAborted(p.plan().tasksToCommit(), id);
        CheckpointException error = cause instanceof CheckpointException ce && ce.reason() == reason ? ce
                : new CheckpointException(reason, "(checkpoint " + id + " of job " + jobName + ")", cause);
        p.request().result().completeExceptionally(error);
        stats.reportFailed(id, reason, cause);
        if (!p.request().isSavepoint()) {
            // as in Flink, a failed savepoint is the requester's to handle (a stop-with-savepoint fails over the job);
            // it does not count toward tolerable-failed-checkpoints
            failureManager.onCheckpointFailure(id, reason, error);
        }
        scheduler.pollQueue();
    }

    // ---------------------------------------------------------------- helpers

    /** @return false if the coordinator is shut down or the timer no longer accepts tasks */
    private boolean runOnTimer(String what, Runnable task) {
        return guardedTimer.execute(what, task);
    }

    /** @return the parsed checkpointing options (for tests and the factory) */
    CheckpointCoordinatorConfig config() {
        return config;
    }
}
