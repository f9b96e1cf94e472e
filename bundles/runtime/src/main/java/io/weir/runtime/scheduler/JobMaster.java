package io.weir.runtime.scheduler;

import io.weir.core.barrier.CheckpointBarrierHandlerFactory;
import io.weir.core.checkpoint.CheckpointFailureReason;
import io.weir.core.checkpoint.CompletedCheckpoint;
import io.weir.core.checkpoint.TaskId;
import io.weir.core.config.CheckpointingMode;
import io.weir.core.config.CheckpointingOptions;
import io.weir.core.config.Configuration;
import io.weir.core.config.ExecutionOptions;
import io.weir.core.coordination.CheckpointCoordinatorContext;
import io.weir.core.coordination.CheckpointCoordinatorGateway;
import io.weir.core.coordination.CheckpointTriggerKind;
import io.weir.core.coordination.CompletedCheckpointStats;
import io.weir.core.coordination.OperatorInfo;
import io.weir.core.coordination.TaskCheckpointGateway;
import io.weir.core.engine.JobHandle;
import io.weir.core.engine.JobListener;
import io.weir.core.engine.JobResult;
import io.weir.core.engine.JobStatus;
import io.weir.core.job.JobGraph;
import io.weir.core.job.VertexKind;
import io.weir.core.state.StateBackend;
import io.weir.core.storage.CheckpointStorage;
import io.weir.runtime.engine.EngineServices;
import io.weir.runtime.io.network.RecordWriter;
import io.weir.runtime.tasks.SourceStreamTask;
import io.weir.runtime.tasks.StreamTask;
import io.weir.runtime.tasks.TaskListener;
import io.weir.runtime.tasks.TaskServices;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * Runs one job: deploys a task per (chain, subtask) wired by local channels, starts the checkpoint
 * scheduler once every task runs (PROTOCOL.md §2), triggers the final checkpoint when all input is
 * processed, and on any task failure restarts all tasks from the latest completed checkpoint.
 *
 * <p>All bookkeeping runs on the job master's own thread ({@code job-master-<job>}); task callbacks
 * and coordinator failures are handed to it.
 */
public final class JobMaster implements JobHandle, TaskListener {
    private static final Logger LOG = LoggerFactory.getLogger(JobMaster.class);
    private static final long CANCEL_JOIN_MS = 10_000;

    private final JobGraph job;
    private final ExecutionPlan plan;
    private final TaskDeployer deployer;
    private final EngineServices services;
    private final JobListener listener;
    private final ScheduledExecutorService executor;
    private final CheckpointStorage storage;
    /** Held from construction until {@link #terminate}: no second run of this job uses the checkpoint directory meanwhile. */
    private final CheckpointStorage.RunLock runLock;
    private final CheckpointCoordinatorGateway coordinator;
    private final StateBackend stateBackend;
    private final CheckpointBarrierHandlerFactory barrierHandlers;
    private final RestartStrategy restartStrategy;
    private final CompletableFuture<JobResult> result = new CompletableFuture<>();

    /** Job master thread only (written), read by the coordinator's task supplier. */
    private volatile List<StreamTask> tasks = List.of();
    /** The current attempt's record writers by the operator whose rows they carry (a chain's tail); replaced at deploy. */
    private volatile Map<String, List<RecordWriter>> writersByOperator = Map.of();
    /** Job master thread only. */
    private int attempt = -1;
    /** Written on the job master thread only; volatile: read by any thread (status()). */
    private volatile JobStatus status = JobStatus.CREATED;
    /** Job master thread only. */
    private final Set<TaskId> running = new HashSet<>();
    /** Job master thread only. */
    private final Set<TaskId> finishedData = new HashSet<>();
    /** Job master thread only. */
    private final Set<TaskId> finished = new HashSet<>();
    /** Job master thread only. */
    private boolean finalCheckpointRequested;
    /** Job master thread only: the attempt whose failure is being handled (its later failures are echoes). */
    private int failedAttempt = -1;
    /** Job master thread only. */
    private ScheduledFuture<?> flusher;
    /** Written by the coordinator's stats callback (its thread), read by the job master thread and by terminate. */
    private volatile CompletedCheckpointStats lastCheckpoint;
    /** Job master thread only: the stop-with-savepoint under way, or null. */
    private StopWithSavepoint stop;

    /**
     * @param job a validated job
     * @param services engine services
     * @param listener told about checkpoints, restarts and status changes
     * @throws IllegalArgumentException if a service the job needs is missing
     * @throws Exception if the checkpoint storage or recovery services cannot be created
     */
    public JobMaster(JobGraph job, EngineServices services, JobListener listener) throws Exception {
        this.job = job;
        this.plan = ExecutionPlan.of(job);
        this.deployer = new TaskDeployer(job, plan);
        this.services = services;
        this.listener = listener;
        Configuration config = job.config();
        String backendType = config.get(ExecutionOptions.STATE_BACKEND);
        this.stateBackend = services.stateBackends().get(backendType);
        if (stateBackend == null) {
            throw new IllegalArgumentException("state backend '" + backendType + "' (state.backend.type) is not installed; installed: "
                    + services.stateBackends().keySet());
        }
        String handlerType = config.get(CheckpointingOptions.MODE) == CheckpointingMode.AT_LEAST_ONCE ? "at-least-once"
                : config.get(CheckpointingOptions.UNALIGNED) || config.get(CheckpointingOptions.ALIGNED_TIMEOUT) > 0 ? "unaligned" : "aligned";
        this.barrierHandlers = services.barrierHandlers().get(handlerType);
        if (barrierHandlers == null) {
            throw new IllegalArgumentException("barrier handler '" + handlerType + "' is not installed (needed by the job's "
                    + "execution.checkpointing.* settings); installed: " + services.barrierHandlers().keySet());
        }
        this.restartStrategy = new RestartStrategy(config.get(ExecutionOptions.RESTART_ATTEMPTS), config.get(ExecutionOptions.RESTART_DELAY));
        this.executor = new java.util.concurrent.ScheduledThreadPoolExecutor(1, r -> {
            Thread t = new Thread(r, "job-master-" + job.name());
            t.setDaemon(true);
            return t;
        }) {
            @Override
            protected void afterExecute(Runnable task, Throwable error) {
                super.afterExecute(task, error);
                Throwable failure = error == null ? failureOf(task) : error;
                if (failure != null) {
                    onInternalError(failure);
                }
            }
        };
        this.storage = services.storage().create(config, job.name());
        // Before anything in the checkpoint directory is read or deleted: a second run of this job refuses here.
        // A recovery factory that fences runs by epoch (HA) replaces the OS lock: a paused former owner still holds it.
        this.runLock = services.recovery().fencesRuns() ? () -> { } : storage.lockRun();
        try {
            discardFinishedRun();
            SavepointRestorePrecheck.check(storage, job);
            int maxParallelism = config.get(ExecutionOptions.MAX_PARALLELISM);
            List<OperatorInfo> operators = job.vertices().stream()
                    .map(v -> new OperatorInfo(v.id(), v.parallelism(), maxParallelism)).toList();
            this.coordinator = services.coordinators().create(new CheckpointCoordinatorContext(job.name(), config, operators,
                    () -> List.<TaskCheckpointGateway>copyOf(tasks), storage,
                    services.recovery().createCheckpointIDCounter(job.name(), storage),
                    services.recovery().createCompletedCheckpointStore(job.name(), config.get(CheckpointingOptions.NUM_RETAINED), storage),
                    List.of(), cause -> executor.execute(() -> failover(attempt, cause)), new StatsForwarder()));
        } catch (Exception | Error e) {
            runLock.close();
            throw e;
        }
        if (!config.contains(CheckpointingOptions.INTERVAL) && job.vertices().stream().anyMatch(v -> v.kind() == VertexKind.SINK)) {
            LOG.warn("Job {} has no execution.checkpointing.interval: its transactional sinks commit nothing until the final "
                    + "checkpoint at the end of bounded input, and nothing at all for unbounded input", job.name());
        }
    }

    /**
     * A job whose newest checkpoint is a final one that is marked finished (every sink committed it,
     * {@link CheckpointStorage#markFinished}) finished in an earlier run: this run starts fresh, so
     * its checkpoints are removed (their ids would otherwise collide with the new run's). Any other
     * newest checkpoint means the earlier run stopped before finishing (e.g. the process died, also
     * between the final checkpoint and its commits): this run resumes from it, exactly once.
     */
    private void discardFinishedRun() throws Exception {
        Optional<String> latest = storage.findLatestCompletedCheckpoint();
        if (latest.isEmpty()) {
            return;
        }
        io.weir.core.checkpoint.CheckpointMetadata metadata = storage.loadCheckpoint(latest.get());
        if (!metadata.isFinal()) {
            LOG.info("Job {} will resume from checkpoint {} of an earlier run that did not finish ({})", job.name(),
                    metadata.checkpointId(), latest.get());
            return;
        }
        if (!storage.isMarkedFinished(metadata.checkpointId())) {
            LOG.info("Job {} will resume from final checkpoint {} of an earlier run that stopped before all its sinks had "
                    + "committed it ({}); what is pending is committed now", job.name(), metadata.checkpointId(), latest.get());
            return;
        }
        LOG.info("An earlier run of job {} finished with final checkpoint {}; starting fresh and removing its checkpoints",
                job.name(), metadata.checkpointId());
        for (long id = 1; id <= metadata.checkpointId(); id++) {
            storage.discardCheckpoint(id); // oldest first: a crash in between leaves the finished record in place
        }
    }

    /** Deploys the job (restoring from the latest complete checkpoint, if any). */
    public void start() {
        LOG.info("Starting job {}: {}", job.name(), plan.describe());
        executor.execute(() -> {
            try {
                long timeout = job.config().get(ExecutionOptions.BUFFER_TIMEOUT);
                flusher = services.timers().scheduleAtFixedRate(() -> tasks.forEach(StreamTask::requestFlush),
                        timeout, Math.max(1, timeout), TimeUnit.MILLISECONDS);
                restoreAndDeploy();
            } catch (Throwable t) {
                terminate(JobStatus.FAILED, t);
            }
        });
    }

    /**
     * The one restore path (first start and every failover): the coordinator picks the checkpoint on
     * its own thread once nothing can complete any more (pending checkpoints aborted, queued requests
     * failed), then the new attempt is deployed from it on the job master thread. Job master thread;
     * the old attempt's tasks are already cancelled.
     */
    private void restoreAndDeploy() {
        coordinator.restoreLatestCheckpoint(CheckpointFailureReason.JOB_SHUTTING_DOWN).whenComplete((restore, error) -> {
            try {
                executor.execute(() -> deployRestored(restore, error));
            } catch (java.util.concurrent.RejectedExecutionException e) {
                LOG.debug("Job {} ended while its restore point was chosen; not deploying", job.name());
            }
        });
    }

    private void deployRestored(Optional<CompletedCheckpoint> restore, Throwable error) {
        if (status != JobStatus.CREATED && status != JobStatus.RESTARTING) {
            return; // cancelled (or failed) while the restore point was chosen
        }
        if (error != null) {
            // the checkpoint cannot be restored (corrupt, missing state): the message says how to proceed
            terminate(JobStatus.FAILED, error instanceof java.io.IOException
                    ? new io.weir.api.SuppressRestartsException(error.getMessage(), error) : error);
            return;
        }
        try {
            restore.ifPresent(cp -> listener.onRestore(job.name(), cp.checkpointId(), cp.externalPointer()));
            deploy(restore);
        } catch (Throwable t) {
            terminate(JobStatus.FAILED, t);
        }
    }

    @Override
    public String jobName() {
        return job.name();
    }

    @Override
    public JobStatus status() {
        return status;
    }

    /** The earliest first-row time of the current attempt's record writers; any thread. */
    @Override
    public long firstRecordTimeMillis() {
        long first = -1;
        for (List<RecordWriter> writers : writersByOperator.values()) {
            for (RecordWriter w : writers) {
                long t = w.firstRecordMillis();
                if (t >= 0 && (first < 0 || t < first)) {
                    first = t;
                }
            }
        }
        return first;
    }

    /** Sums the current attempt's record writers per operator; any thread. */
    @Override
    public Map<String, Long> recordsWritten() {
        Map<String, Long> out = new HashMap<>();
        writersByOperator.forEach((operator, writers) ->
                out.put(operator, writers.stream().mapToLong(RecordWriter::recordsWritten).sum()));
        return Map.copyOf(out);
    }

    @Override
    public CompletableFuture<JobResult> result() {
        return result;
    }

    @Override
    public CompletableFuture<CompletedCheckpoint> triggerCheckpoint() {
        return coordinator.triggerCheckpoint(CheckpointTriggerKind.MANUAL);
    }

    /** {@inheritDoc} */
    @Override
    public CompletableFuture<java.nio.file.Path> triggerSavepoint(Optional<java.nio.file.Path> directory) {
        String target;
        try {
            target = savepointDirectory(directory);
        } catch (IllegalArgumentException e) {
            return CompletableFuture.failedFuture(e);
        }
        LOG.info("Savepoint of job {} requested into {}", job.name(), target);
        return coordinator.triggerSavepoint(target, false).thenApply(cp -> java.nio.file.Path.of(cp.externalPointer()));
    }

    /** {@inheritDoc} */
    @Override
    public CompletableFuture<java.nio.file.Path> stopWithSavepoint(Optional<java.nio.file.Path> directory, boolean drain) {
        CompletableFuture<java.nio.file.Path> done = new CompletableFuture<>();
        String target;
        try {
            target = savepointDirectory(directory);
        } catch (IllegalArgumentException e) {
            return CompletableFuture.failedFuture(e);
        }
        try {
            executor.execute(() -> startStop(new StopWithSavepoint(target, drain, attempt, done)));
        } catch (java.util.concurrent.RejectedExecutionException e) {
            done.completeExceptionally(new IllegalStateException("job " + job.name() + " already ended (" + status + ")"));
        }
        return done;
    }

    /** @return the absolute savepoint target: the given directory, else the job's configured one */
    private String savepointDirectory(Optional<java.nio.file.Path> directory) {
        if (directory.isPresent()) {
            return directory.get().toAbsolutePath().normalize().toString();
        }
        String configured = job.config().get(CheckpointingOptions.SAVEPOINT_DIRECTORY);
        if (configured == null || configured.isBlank()) {
            throw new IllegalArgumentException("no savepoint directory for job " + job.name() + ": name one, or set "
                    + CheckpointingOptions.SAVEPOINT_DIRECTORY.key() + " in the job's config");
        }
        return configured;
    }

    /** Job master thread. */
    private void startStop(StopWithSavepoint request) {
        if (status != JobStatus.RUNNING || stop != null) {
            request.result().completeExceptionally(new IllegalStateException("cannot stop job " + job.name()
                    + " with a savepoint: it is " + (stop != null ? "already stopping" : status) + "; it must be RUNNING"));
            return;
        }
        stop = request;
        LOG.info("Stopping job {} with a savepoint into {} ({})", job.name(), request.directory(),
                request.drain() ? "drain: sources end their input first" : "no drain: sources stop at the savepoint");
        coordinator.stopCheckpointScheduler();
        if (request.drain()) {
            for (StreamTask t : tasks) {
                if (t instanceof SourceStreamTask source) {
                    source.endInput(); // all tasks then finish their data, and onFinishedData takes the savepoint
                }
            }
        } else {
            triggerStopSavepoint(request);
        }
    }

    /** The final savepoint of a stop; the tasks end once notified of its completion (onFinished). Job master thread. */
    private void triggerStopSavepoint(StopWithSavepoint request) {
        coordinator.triggerSavepoint(request.directory(), true).whenComplete((cp, err) -> executor.execute(() -> {
            if (stop != request) {
                return; // the stop already ended (failover, cancel)
            }
            if (err == null) {
                request.savepoint().complete(cp);
                return;
            }
            LOG.warn("The savepoint of stop-with-savepoint of job {} failed; the job restarts and keeps running: {}",
                    job.name(), err.toString());
            failover(request.attempt(), new IllegalStateException("stop-with-savepoint of job " + job.name()
                    + " failed: " + RunFailures.describe(err), err));
        }));
    }

    @Override
    public void cancel() {
        end(JobStatus.CANCELED, "Cancelling job {}");
    }

    @Override
    public void suspend() {
        end(JobStatus.SUSPENDED, "Suspending job {}: its checkpoints are kept for a later run to resume from");
    }

    /** Ends the job with {@code to} on the job master thread unless it already ended. Any thread. */
    private void end(JobStatus to, String logMessage) {
        try {
            executor.execute(() -> {
                if (!status.isTerminal()) {
                    LOG.info(logMessage, job.name());
                    terminate(to, null);
                }
            });
        } catch (java.util.concurrent.RejectedExecutionException e) {
            // the job already ended and its job master thread is gone: nothing to do
        }
    }

    // ---- deployment

    /** Starts the next attempt: its tasks, built by the {@link TaskDeployer}, restore from {@code restore}. Job master thread. */
    private void deploy(Optional<CompletedCheckpoint> restore) {
        attempt++;
        running.clear();
        finishedData.clear();
        finished.clear();
        finalCheckpointRequested = false;
        restore.ifPresent(cp -> LOG.info("Restoring job {} from checkpoint {} ({}); keys keep their placement, key hash version {}",
                job.name(), cp.checkpointId(), cp.externalPointer(), cp.metadata().keyHashVersion()));
        TaskServices taskServices = new TaskServices(services.plugins(), stateBackend, storage, coordinator, barrierHandlers,
                services.asyncOperations(), this, services.timers());
        TaskDeployer.Attempt deployed = deployer.build(attempt, restore, taskServices);
        tasks = deployed.tasks();
        writersByOperator = deployed.writersByOperator();
        deployed.start();
    }

    // ---- task callbacks (task threads) → job master thread

    @Override
    public void onRunning(TaskId task) {
        executor.execute(() -> {
            if (task.attempt() != attempt || status.isTerminal()) {
                return;
            }
            running.add(task);
            if (running.size() == tasks.size()) {
                setStatus(JobStatus.RUNNING);
                coordinator.startCheckpointScheduler();
            }
        });
    }

    @Override
    public void onFinishedData(TaskId task) {
        executor.execute(() -> {
            if (task.attempt() != attempt || status.isTerminal()) {
                return;
            }
            finishedData.add(task);
            if (finishedData.size() == tasks.size() && !finalCheckpointRequested) {
                finalCheckpointRequested = true;
                if (stop != null) {
                    if (stop.drain()) {
                        LOG.info("All tasks of job {} drained their input; taking the final savepoint", job.name());
                        triggerStopSavepoint(stop);
                    } // else the stop's savepoint is already under way and ends the tasks
                    return;
                }
                LOG.info("All tasks of job {} processed their input; triggering the final checkpoint", job.name());
                triggerFinalCheckpoint(attempt);
            }
        });
    }

    private void triggerFinalCheckpoint(int forAttempt) {
        coordinator.triggerCheckpoint(CheckpointTriggerKind.FINAL).whenComplete((cp, err) -> {
            if (err != null) {
                executor.schedule(() -> {
                    if (forAttempt == attempt && !status.isTerminal() && status != JobStatus.RESTARTING) {
                        LOG.info("Final checkpoint of job {} failed ({}); retrying", job.name(), err.getMessage());
                        triggerFinalCheckpoint(forAttempt);
                    }
                }, 100, TimeUnit.MILLISECONDS);
            }
        });
    }

    @Override
    public void onFinished(TaskId task) {
        executor.execute(() -> {
            if (task.attempt() != attempt || status.isTerminal()) {
                return;
            }
            finished.add(task);
            if (finished.size() == tasks.size()) {
                if (stop != null) {
                    // the tasks end on the savepoint's notification, which may reach them before its future completes
                    StopWithSavepoint request = stop;
                    request.savepoint().thenRun(() -> executor.execute(() -> {
                        if (stop == request) {
                            finishStop(request);
                        }
                    }));
                    return;
                }
                LOG.info("Job {} finished: all input processed and committed", job.name());
                markFinished();
                terminate(JobStatus.FINISHED, null);
            }
        });
    }

    /**
     * Every task ended after every sink committed the stop's savepoint: the job's own checkpoints are older than
     * the savepoint (whose output is committed), so they are removed, as Flink removes a finished job's
     * checkpoints; a later run resumes through {@code --from-savepoint}, and one without it starts fresh (the
     * file sink then refuses to write its output again). Job master thread.
     */
    private void finishStop(StopWithSavepoint request) {
        CompletedCheckpoint savepoint = request.savepoint().join();
        LOG.info("Job {} stopped with savepoint {} at {}; removing its own checkpoints", job.name(), savepoint.checkpointId(),
                savepoint.externalPointer());
        try {
            for (Optional<String> own = storage.findLatestCompletedCheckpoint(); own.isPresent();
                    own = storage.findLatestCompletedCheckpoint()) {
                storage.discardCheckpoint(storage.loadCheckpoint(own.get()).checkpointId());
            }
            storage.forgetSavepoints();
        } catch (Exception e) {
            LOG.error("Job {} stopped with savepoint {}, but its own checkpoints could not all be removed; delete them"
                    + " before resuming from the savepoint", job.name(), savepoint.externalPointer(), e);
        }
        stop = null;
        terminate(JobStatus.FINISHED, null);
        request.result().complete(java.nio.file.Path.of(savepoint.externalPointer()));
    }

    /**
     * Every task ended after every sink committed the final checkpoint: record it, so the next run
     * starts fresh instead of resuming from the final checkpoint (which it does while the record is
     * missing, committing what an interrupted run left pending).
     */
    private void markFinished() {
        CompletedCheckpointStats last = lastCheckpoint;
        if (last == null || !last.isFinal()) {
            LOG.warn("Job {} finished without a completed final checkpoint; nothing is recorded as finished", job.name());
            return;
        }
        try {
            storage.markFinished(last.checkpointId());
        } catch (Exception e) {
            LOG.error("Job {} finished, but recording it failed; its next run resumes from final checkpoint {} and commits "
                    + "nothing twice", job.name(), last.checkpointId(), e);
        }
    }

    @Override
    public void onFailed(TaskId task, Throwable cause) {
        executor.execute(() -> failover(task.attempt(), cause));
    }

    /** Restarts all tasks from the latest completed checkpoint, or fails the job if no attempt is left. Job master thread. */
    private void failover(int attemptThatFailed, Throwable cause) {
        // ignore failures of older attempts and further failures of one already being handled; a
        // failure of the new attempt while it is still starting (status RESTARTING) is a new one
        if (attemptThatFailed != attempt || status.isTerminal() || failedAttempt == attempt) {
            return;
        }
        failedAttempt = attempt;
        if (stop != null) {
            stop.result().completeExceptionally(new IllegalStateException("stop-with-savepoint of job " + job.name()
                    + " did not complete: the job failed and restarts (" + cause.getMessage() + ")", cause));
            stop = null;
        }
        setStatus(JobStatus.RESTARTING);
        coordinator.stopCheckpointScheduler();
        coordinator.abortPendingCheckpoints(CheckpointFailureReason.JOB_SHUTTING_DOWN);
        cancelTasks();
        io.weir.api.SuppressRestartsException notRestartable = io.weir.api.SuppressRestartsException.findIn(cause);
        if (notRestartable != null) {
            terminate(JobStatus.FAILED, new Exception(notRestartable.getMessage() + " (job " + job.name()
                    + " is not restarted: a restart cannot help)", cause));
            return;
        }
        if (!restartStrategy.tryRestart()) {
            terminate(JobStatus.FAILED, new Exception("Job " + job.name() + " failed after " + restartStrategy.restarts()
                    + " restart(s) (restart-strategy.fixed-delay.attempts=" + restartStrategy.maxAttempts() + "): " + cause.getMessage(), cause));
            return;
        }
        LOG.warn("Restarting job {} (restart {} of {}) in {} ms after: {}", job.name(), restartStrategy.restarts(),
                restartStrategy.maxAttempts(), restartStrategy.delayMs(), cause.toString());
        listener.onRestart(job.name(), restartStrategy.restarts(), cause);
        executor.schedule(() -> {
            if (status == JobStatus.RESTARTING) {
                restoreAndDeploy();
            }
        }, restartStrategy.delayMs(), TimeUnit.MILLISECONDS);
    }

    private void cancelTasks() {
        List<StreamTask> current = tasks;
        current.forEach(StreamTask::cancel);
        long deadline = System.currentTimeMillis() + CANCEL_JOIN_MS;
        for (StreamTask t : current) {
            try {
                t.join(Math.max(1, deadline - System.currentTimeMillis()));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
        tasks = List.of();
    }

    /**
     * Ends the job: FAILED and CANCELED pass through FAILING and CANCELLING while the tasks are
     * cancelled and the coordinator stopped. Job master thread.
     */
    private void terminate(JobStatus to, Throwable failure) {
        if (to == JobStatus.FAILED) {
            setStatus(JobStatus.FAILING);
        } else if (to == JobStatus.CANCELED) {
            setStatus(JobStatus.CANCELLING);
        }
        if (stop != null) {
            stop.result().completeExceptionally(new IllegalStateException("stop-with-savepoint of job " + job.name()
                    + " did not complete: the job ended " + to));
            stop = null;
        }
        coordinator.stopCheckpointScheduler();
        if (to != JobStatus.FINISHED) {
            coordinator.abortPendingCheckpoints(CheckpointFailureReason.JOB_SHUTTING_DOWN);
        }
        cancelTasks();
        if (flusher != null) {
            flusher.cancel(false);
        }
        coordinator.shutdown();
        setStatus(to);
        if (failure != null && io.weir.api.SuppressRestartsException.findIn(failure) != null) {
            LOG.error("Job {} {}: {}", job.name(), to, failure.getMessage()); // says what to do: no stack trace
        } else if (failure != null) {
            LOG.error("Job {} {}", job.name(), to, failure);
        }
        runLock.close();
        result.complete(new JobResult(job.name(), to, failure, restartStrategy.restarts(), lastCheckpoint));
        executor.shutdown();
    }

    /** @return what a finished job-master task threw (the executor keeps it in the task's future), else null */
    private static Throwable failureOf(Runnable task) {
        if (task instanceof java.util.concurrent.Future<?> f && f.isDone() && !f.isCancelled()) {
            try {
                f.get();
            } catch (java.util.concurrent.ExecutionException e) {
                return e.getCause();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        return null;
    }

    /**
     * A job-master task threw (a bug, or a listener that throws): the job fails with that error rather
     * than hanging with its result never completed. Job master thread.
     */
    private void onInternalError(Throwable error) {
        LOG.error("Internal error in the job master of job {}", job.name(), error);
        if (result.isDone()) {
            return;
        }
        Exception failure = new IllegalStateException("internal error in the job master of job " + job.name() + ": " + error, error);
        try {
            terminate(JobStatus.FAILED, failure);
        } catch (RuntimeException | Error again) {
            failure.addSuppressed(again);
            result.complete(new JobResult(job.name(), JobStatus.FAILED, failure, restartStrategy.restarts(), lastCheckpoint));
        }
    }

    private void setStatus(JobStatus to) {
        JobStatus from = status;
        if (from == to) {
            return;
        }
        status = from.transitionTo(to); // throws on a change the JobStatus diagram does not have
        try {
            listener.onStatusChange(job.name(), from, to);
        } catch (RuntimeException e) {
            LOG.warn("Job listener failed on status change of job {}", job.name(), e);
        }
    }

    /** Remembers the last completed checkpoint's stats and forwards to the user's listener. */
    private final class StatsForwarder implements io.weir.core.coordination.CheckpointStatsListener {
        @Override
        public void onCompleted(CompletedCheckpointStats stats) {
            lastCheckpoint = stats;
            listener.onCompleted(stats);
        }

        @Override
        public void onFailed(long checkpointId, CheckpointFailureReason reason, Throwable cause) {
            listener.onFailed(checkpointId, reason, cause);
        }
    }
}
