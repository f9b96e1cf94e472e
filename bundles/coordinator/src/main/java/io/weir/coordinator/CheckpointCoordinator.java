package io.weir.coordinator;

import io.weir.core.checkpoint.CheckpointException;
import io.weir.core.checkpoint.CheckpointFailureReason;
import io.weir.core.checkpoint.CheckpointMetadata;
import io.weir.core.checkpoint.CompletedCheckpoint;
import io.weir.core.checkpoint.SubtaskCheckpointMetrics;
import io.weir.core.checkpoint.TaskId;
import io.weir.core.checkpoint.TaskStateSnapshot;
import io.weir.core.coordination.CheckpointCoordinatorContext;
import io.weir.core.coordination.CheckpointCoordinatorGateway;
import io.weir.core.coordination.CheckpointTriggerKind;
import io.weir.core.coordination.TaskCheckpointGateway;
import io.weir.coordinator.CheckpointRequestDecider.Decision;
import io.weir.coordinator.CheckpointRequestDecider.Reject;
import io.weir.coordinator.CheckpointRequestDecider.Trigger;
import io.weir.coordinator.CheckpointRequestDecider.Wait;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The job-manager side of checkpointing of one job (PROTOCOL.md §2): periodic scheduler, trigger
 * pipeline, ack/decline routing, completion and abort. Ack bookkeeping, decisions, failure counting,
 * metadata and stats live in the collaborators named below.
 *
 * <p>Trigger pipeline, in order: {@link CheckpointRequestDecider} → {@link CheckpointPlan} (any task
 * not running fails the trigger with NOT_ALL_REQUIRED_TASKS_RUNNING, not counted) → id from the
 * {@code CheckpointIDCounter} → {@link PendingCheckpoint} and its timeout
 * ({@code execution.checkpointing.timeout}) → {@code storage.initCheckpoint} → master hooks (all must
 * complete; the timeout covers them) → trigger RPCs to the source tasks.
 *
 * <p>Threading: every public method may be called from any thread and returns without waiting; the
 * work runs on the single {@link CheckpointTimer} thread, which owns all mutable fields below. No
 * lock is ever held while calling tasks, storage, hooks, the store or the runtime's callbacks, so
 * those may call back into the coordinator.
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
    private final CheckpointFinalizer finalizer;
    private final CheckpointStatsTracker stats;

    /** Timer thread only. */
    private final CheckpointRequestDecider decider;
    /** Timer thread only. */
    private final CheckpointFailureManager failureManager;
    /** Pending checkpoints by id, ascending. Timer thread only. */
    private final TreeMap<Long, PendingCheckpoint> pending = new TreeMap<>();
    /** Timer thread only. */
    private final RecentCheckpointIds recentlyAborted = new RecentCheckpointIds(RECENT_IDS);
    /** Timer thread only. */
    private final RecentCheckpointIds recentlyCompleted = new RecentCheckpointIds(RECENT_IDS);
    /** Whether the periodic scheduler runs. Timer thread only. */
    private boolean periodicActive;
    /** Incremented on every start/stop so a stale periodic tick does nothing. Timer thread only. */
    private long periodicGeneration;
    /** The next periodic tick. Timer thread only. */
    private CheckpointTimer.Cancellable periodicTick;
    /** The retry of the request queue after a min-pause, and its due time. Timer thread only. */
    private CheckpointTimer.Cancellable queueRetry;
    private long queueRetryAtMs = Long.MAX_VALUE;
    /** Set once by {@link #shutdown()}; read by any thread. */
    private final AtomicBoolean shutDown = new AtomicBoolean();

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
        this.decider = new CheckpointRequestDecider(config.maxConcurrent(), config.minPauseMs(), MAX_QUEUED_REQUESTS);
        this.failureManager = new CheckpointFailureManager(jobName, config.tolerableFailed(),
                Objects.requireNonNull(context.failJob(), "failJob"));
        this.finalizer = new CheckpointFinalizer(jobName, context.operators(), context.storage(), timer::now);
        this.stats = new CheckpointStatsTracker(jobName, context.statsListener());
    }

    // ---------------------------------------------------------------- public API (any thread)

    @Override
    public void startCheckpointScheduler() {
        if (!config.isPeriodic()) {
            LOG.info("Periodic checkpoints are off for job {} ({} is not set)", jobName,
                    io.weir.core.config.CheckpointingOptions.INTERVAL.key());
            return;
        }
        runOnTimer("starting the checkpoint scheduler", () -> {
            if (!periodicActive) {
                periodicActive = true;
                periodicGeneration++;
                LOG.info("Starting the checkpoint scheduler of job {}: every {} ms", jobName, config.intervalMs());
                schedulePeriodicTick(config.intervalMs());
            }
        });
    }

    @Override
    public void stopCheckpointScheduler() {
        runOnTimer("stopping the checkpoint scheduler", this::stopPeriodic);
    }

    @Override
    public CompletableFuture<CompletedCheckpoint> triggerCheckpoint(CheckpointTriggerKind kind) {
        Objects.requireNonNull(kind, "kind");
        CompletableFuture<CompletedCheckpoint> result = new CompletableFuture<>();
        if (!runOnTimer("handling a " + kind + " checkpoint request",
                () -> apply(decider.submit(new CheckpointRequest(kind, timer.now(), result), pending.size(), timer.now())))) {
            result.completeExceptionally(new CheckpointException(CheckpointFailureReason.JOB_SHUTTING_DOWN,
                    "The checkpoint coordinator of job " + jobName + " is shut down.", null));
        }
        return result;
    }

    @Override
    public void acknowledgeCheckpoint(TaskId task, long checkpointId, SubtaskCheckpointMetrics metrics,
            TaskStateSnapshot state) {
        runOnTimer("handling the ack of " + task + " for checkpoint " + checkpointId,
                () -> onAcknowledge(task, checkpointId, metrics, state));
    }

    @Override
    public void declineCheckpoint(TaskId task, long checkpointId, CheckpointFailureReason reason, Throwable cause) {
        runOnTimer("handling the decline of " + task + " for checkpoint " + checkpointId,
                () -> onDecline(task, checkpointId, reason, cause));
    }

    /**
     * {@inheritDoc}
     * <p>Takes effect on the timer thread after every call made before it; acks that arrive later for
     * the aborted checkpoints are late acks. The periodic scheduler keeps running.
     */
    @Override
    public void abortPendingCheckpoints(CheckpointFailureReason reason) {
        Objects.requireNonNull(reason, "reason");
        runOnTimer("aborting pending checkpoints", () -> abortAll(reason, null));
    }

    /**
     * {@inheritDoc}
     * <p>Reads the completed store, else the storage's newest complete {@code _metadata} (which is then
     * added to the store), and sets the id counter to the restored id + 1 if it is lower. Runs on the
     * caller's thread; call it while the scheduler is stopped.
     *
     * @throws Exception if the store, the storage or the id counter fails, naming the job
     */
    @Override
    public Optional<CompletedCheckpoint> restoreLatestCheckpoint() throws Exception {
        Optional<CompletedCheckpoint> latest = context.store().getLatestCheckpoint();
        if (latest.isEmpty()) {
            Optional<String> pointer = context.storage().findLatestCompletedCheckpoint();
            if (pointer.isPresent()) {
                CheckpointMetadata metadata;
                try {
                    metadata = context.storage().loadCheckpoint(pointer.get());
                } catch (IOException e) {
                    throw new IOException("cannot restore job " + jobName + " from " + pointer.get(), e);
                }
                CompletedCheckpoint cp = new CompletedCheckpoint(metadata.checkpointId(), metadata.timestamp(),
                        metadata.timestamp(), pointer.get(), metadata);
                context.store().addCheckpointAndSubsumeOldest(cp, this::discardSubsumed);
                latest = Optional.of(cp);
            }
        }
        if (latest.isEmpty()) {
            LOG.info("No completed checkpoint to restore job {} from", jobName);
            return latest;
        }
        long id = latest.get().checkpointId();
        if (context.idCounter().get() <= id) {
            context.idCounter().setCount(id + 1);
        }
        LOG.info("Restoring job {} from checkpoint {} at {}", jobName, id, latest.get().externalPointer());
        return latest;
    }

    /**
     * {@inheritDoc}
     * <p>Pending checkpoints are aborted with JOB_SHUTTING_DOWN (not counted), queued requests fail
     * with it. Waits up to 10 s for the timer thread to stop, unless called on it.
     */
    @Override
    public void shutdown() {
        if (!shutDown.compareAndSet(false, true)) {
            return;
        }
        try {
            timer.execute(guarded("shutting down", () -> {
                stopPeriodic();
                // Drain first: aborting frees room, which would otherwise start a queued request.
                for (CheckpointRequest r : decider.drainQueue()) {
                    r.result().completeExceptionally(new CheckpointException(CheckpointFailureReason.JOB_SHUTTING_DOWN,
                            "The checkpoint coordinator of job " + jobName + " is shut down.", null));
                }
                abortAll(CheckpointFailureReason.JOB_SHUTTING_DOWN, null);
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

    // ---------------------------------------------------------------- scheduling (timer thread)

    private void stopPeriodic() {
        if (periodicActive) {
            LOG.info("Stopping the checkpoint scheduler of job {}", jobName);
        }
        periodicActive = false;
        periodicGeneration++;
        if (periodicTick != null) {
            periodicTick.cancel();
            periodicTick = null;
        }
    }

    private void schedulePeriodicTick(long delayMs) {
        long generation = periodicGeneration;
        periodicTick = timer.schedule(guarded("a periodic checkpoint trigger", () -> onPeriodicTick(generation)), delayMs);
    }

    private void onPeriodicTick(long generation) {
        if (!periodicActive || generation != periodicGeneration) {
            return;
        }
        long now = timer.now();
        Decision decision = decider.submit(new CheckpointRequest(CheckpointTriggerKind.PERIODIC, now,
                new CompletableFuture<>()), pending.size(), now);
        long nextDelay = config.intervalMs();
        if (decision instanceof Reject r && r.reason() == CheckpointFailureReason.MINIMUM_TIME_BETWEEN_CHECKPOINTS) {
            // Trigger as soon as the pause is over instead of waiting for the next interval.
            nextDelay = Math.max(1, decider.pauseEnd() - now);
        }
        schedulePeriodicTick(nextDelay);
        apply(decision);
    }

    /** Carries out a decision of the decider. */
    private void apply(Decision decision) {
        if (decision instanceof Trigger t) {
            startCheckpoint(t.request());
        } else if (decision instanceof Reject r) {
            CheckpointRequest req = r.request();
            if (req.isPeriodic()) {
                LOG.debug("Skipping periodic checkpoint of job {}: {}", jobName, r.reason().message());
            } else {
                LOG.info("Rejecting {} checkpoint request of job {}: {}", req.kind(), jobName, r.reason().message());
            }
            req.result().completeExceptionally(new CheckpointException(r.reason(), "(job " + jobName + ")", null));
        } else if (decision instanceof Wait w && w.retryAtMs() != CheckpointRequestDecider.ON_CHECKPOINT_FINISHED) {
            scheduleQueueRetry(w.retryAtMs());
        }
    }

    private void scheduleQueueRetry(long atMs) {
        if (queueRetry != null && queueRetryAtMs <= atMs) {
            return;
        }
        if (queueRetry != null) {
            queueRetry.cancel();
        }
        queueRetryAtMs = atMs;
        queueRetry = timer.schedule(guarded("retrying queued checkpoint requests", () -> {
            queueRetry = null;
            queueRetryAtMs = Long.MAX_VALUE;
            pollQueue();
        }), Math.max(0, atMs - timer.now()));
    }

    /** Triggers queued manual/final requests while the decider allows. */
    private void pollQueue() {
        while (true) {
            Decision d = decider.poll(pending.size(), timer.now());
            apply(d);
            if (!(d instanceof Trigger)) {
                return;
            }
        }
    }

    // ---------------------------------------------------------------- trigger pipeline (timer thread)

    private void startCheckpoint(CheckpointRequest request) {
        if (shutDown.get()) {
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
        PendingCheckpoint p = new PendingCheckpoint(id, timestamp, request, plan, config.optionsFor(request.kind()));
        pending.put(id, p);
        p.setTimeoutCanceller(timer.schedule(guarded("expiring checkpoint " + id, () -> onTimeout(p)), config.timeoutMs()));
        LOG.info("Triggering checkpoint {} for job {} ({}, {}{}, {} source tasks, {} tasks)", id, jobName, request.kind(),
                p.options().alignment(), p.options().isFinal() ? ", final" : "", plan.tasksToTrigger().size(),
                plan.tasksToWaitFor().size());
        try {
            context.storage().initCheckpoint(id);
        } catch (IOException | RuntimeException e) {
            abort(p, CheckpointFailureReason.IO_EXCEPTION,
                    new IOException("cannot create the location of checkpoint " + id + " of job " + jobName, e));
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

    private void onAcknowledge(TaskId task, long id, SubtaskCheckpointMetrics metrics, TaskStateSnapshot state) {
        PendingCheckpoint p = pending.get(id);
        if (p == null) {
            if (recentlyAborted.contains(id)) {
                LOG.debug("Late ack from task {} for checkpoint {} of job {}, which was aborted or expired; discarding its state",
                        task, id, jobName);
                discardLocation(id);
            } else if (recentlyCompleted.contains(id)) {
                LOG.debug("Ignoring duplicate ack from task {} for completed checkpoint {} of job {}", task, id, jobName);
            } else {
                LOG.error("Received an ack from task {} for unknown checkpoint {} of job {}; ignoring it", task, id, jobName);
            }
            return;
        }
        switch (p.acknowledge(task, metrics, state)) {
            case SUCCESS -> {
                LOG.debug("Task {} acknowledged checkpoint {} of job {} ({} bytes)", task, id, jobName,
                        metrics.checkpointedSizeBytes());
                if (p.isFullyAcknowledged()) {
                    complete(p);
                }
            }
            case DUPLICATE -> LOG.debug("Ignoring duplicate ack from task {} for checkpoint {} of job {}", task, id, jobName);
            case UNKNOWN_TASK -> logIgnoredTask("ack", p, task);
            case NOT_ACCEPTING -> LOG.warn("Ignoring ack from task {} for checkpoint {} of job {} in state {}", task, id,
                    jobName, p.state());
        }
    }

    private void onDecline(TaskId task, long id, CheckpointFailureReason reason, Throwable cause) {
        PendingCheckpoint p = pending.get(id);
        if (p == null) {
            if (recentlyAborted.contains(id) || recentlyCompleted.contains(id)) {
                LOG.debug("Late decline from task {} for finished checkpoint {} of job {}", task, id, jobName);
            } else {
                LOG.warn("Received a decline from task {} for unknown checkpoint {} of job {}; ignoring it", task, id, jobName);
            }
            return;
        }
        if (!p.waitsFor(task)) {
            logIgnoredTask("decline", p, task);
            return;
        }
        CheckpointFailureReason given = reason == null ? CheckpointFailureReason.CHECKPOINT_DECLINED : reason;
        CheckpointFailureReason abortReason = given.isCounted() ? CheckpointFailureReason.CHECKPOINT_DECLINED : given;
        LOG.info("Checkpoint {} of job {} declined by task {}: {}", id, jobName, task, given.message(), cause);
        abort(p, abortReason, new CheckpointException(given, "Declined by task " + task + " (checkpoint " + id
                + " of job " + jobName + ").", cause));
    }

    private void logIgnoredTask(String what, PendingCheckpoint p, TaskId task) {
        if (p.plan().waitsForOtherAttemptOf(task)) {
            LOG.info("Ignoring {} from old attempt {} for checkpoint {} of job {}", what, task, p.checkpointId(), jobName);
        } else {
            LOG.warn("Ignoring {} from task {}, which checkpoint {} of job {} does not wait for", what, task,
                    p.checkpointId(), jobName);
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
            cp = finalizer.finalizeCheckpoint(p);
        } catch (IOException e) {
            abort(p, CheckpointFailureReason.IO_EXCEPTION, e);
            return;
        } catch (RuntimeException e) {
            abort(p, CheckpointFailureReason.FINALIZE_CHECKPOINT_FAILURE, e);
            return;
        }
        try {
            context.store().addCheckpointAndSubsumeOldest(cp, this::discardSubsumed);
        } catch (Exception e) {
            abort(p, CheckpointFailureReason.FINALIZE_CHECKPOINT_FAILURE, new IllegalStateException(
                    "cannot add checkpoint " + id + " of job " + jobName + " to the completed checkpoint store", e));
            return;
        }
        p.transitionTo(PendingCheckpoint.State.COMPLETED);
        pending.remove(id);
        p.cancelTimeout();
        recentlyCompleted.add(id);
        decider.checkpointCompleted(timer.now());
        failureManager.onCheckpointSuccess(id);
        var s = stats.reportCompleted(p, cp);
        LOG.info("Completed checkpoint {} for job {} ({} bytes, {} ms)", id, jobName, s.checkpointedSizeBytes(),
                s.endToEndDurationMs());
        // A newer completed checkpoint subsumes older pending ones (and the store accepts only newer ids).
        for (PendingCheckpoint older : new ArrayList<>(pending.headMap(id).values())) {
            abort(older, CheckpointFailureReason.CHECKPOINT_SUBSUMED, null);
        }
        for (TaskCheckpointGateway task : p.plan().tasksToCommit()) {
            try {
                task.notifyCheckpointComplete(id);
            } catch (RuntimeException e) {
                LOG.warn("Could not notify task {} that checkpoint {} of job {} completed", task.taskId(), id, jobName, e);
            }
        }
        p.request().result().complete(cp);
        pollQueue();
    }

    private void abortAll(CheckpointFailureReason reason, Throwable cause) {
        if (!pending.isEmpty()) {
            LOG.info("Aborting {} pending checkpoints of job {}: {}", pending.size(), jobName, reason.message());
        }
        for (PendingCheckpoint p : new ArrayList<>(pending.values())) {
            abort(p, reason, cause);
        }
    }

    private void abort(PendingCheckpoint p, CheckpointFailureReason reason, Throwable cause) {
        if (p.isDisposed()) {
            return;
        }
        long id = p.checkpointId();
        p.transitionTo(PendingCheckpoint.State.ABORTED);
        pending.remove(id);
        p.cancelTimeout();
        recentlyAborted.add(id);
        if (reason.isCounted()) {
            LOG.warn("Checkpoint {} of job {} failed: {}", id, jobName, reason.message(), cause);
        } else {
            LOG.info("Checkpoint {} of job {} aborted: {}", id, jobName, reason.message());
        }
        discardLocation(id);
        for (TaskCheckpointGateway task : p.plan().tasksToCommit()) {
            try {
                task.notifyCheckpointAborted(id);
            } catch (RuntimeException e) {
                LOG.warn("Could not notify task {} that checkpoint {} of job {} was aborted", task.taskId(), id, jobName, e);
            }
        }
        CheckpointException error = cause instanceof CheckpointException ce && ce.reason() == reason ? ce
                : new CheckpointException(reason, "(checkpoint " + id + " of job " + jobName + ")", cause);
        p.request().result().completeExceptionally(error);
        stats.reportFailed(id, reason, cause);
        failureManager.onCheckpointFailure(id, reason, error);
        pollQueue();
    }

    private void discardSubsumed(CompletedCheckpoint subsumed) {
        LOG.debug("Checkpoint {} of job {} subsumed; discarding it", subsumed.checkpointId(), jobName);
        discardLocation(subsumed.checkpointId());
    }

    private void discardLocation(long id) {
        try {
            context.storage().discardCheckpoint(id);
        } catch (IOException | RuntimeException e) {
            LOG.warn("Could not discard checkpoint {} of job {}", id, jobName, e);
        }
    }

    // ---------------------------------------------------------------- helpers

    /** @return false if the timer no longer accepts tasks */
    private boolean runOnTimer(String what, Runnable task) {
        if (shutDown.get()) {
            LOG.debug("Checkpoint coordinator of job {} is shut down; not {}", jobName, what);
            return false;
        }
        try {
            timer.execute(guarded(what, task));
            return true;
        } catch (RejectedExecutionException e) {
            LOG.debug("Checkpoint timer of job {} stopped; not {}", jobName, what);
            return false;
        }
    }

    /** Wraps a timer task so that an unexpected error is logged with context and the thread survives. */
    private Runnable guarded(String what, Runnable task) {
        return () -> {
            try {
                task.run();
            } catch (RuntimeException | Error e) {
                LOG.error("Unexpected error in the checkpoint timer of job {} while {}", jobName, what, e);
            }
        };
    }

    /** @return the parsed checkpointing options (for tests and the factory) */
    CheckpointCoordinatorConfig config() {
        return config;
    }
}
