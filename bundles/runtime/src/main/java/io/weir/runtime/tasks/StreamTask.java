package io.weir.runtime.tasks;

import io.weir.api.Row;
import io.weir.api.operator.Output;
import io.weir.api.operator.StreamOperator;
import io.weir.core.barrier.BarrierAlignment;
import io.weir.core.checkpoint.CheckpointBarrier;
import io.weir.core.checkpoint.CheckpointOptions;
import io.weir.core.checkpoint.OperatorSubtaskState;
import io.weir.core.checkpoint.TaskId;
import io.weir.core.coordination.TaskCheckpointGateway;
import io.weir.core.job.JobVertex;
import io.weir.core.state.OperatorStateBackend;
import io.weir.runtime.checkpoint.SnapshotParticipant;
import io.weir.runtime.checkpoint.SubtaskCheckpointCoordinator;
import io.weir.runtime.io.network.EndOfData;
import io.weir.runtime.io.network.RecordWriter;
import io.weir.runtime.mailbox.Mail;
import io.weir.runtime.mailbox.MailboxProcessor;
import io.weir.runtime.mailbox.TaskMailbox;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import io.weir.core.checkpoint.CheckpointAlignment;
import io.weir.runtime.checkpoint.ChannelIO;
import io.weir.runtime.checkpoint.RecordedInput;

/**
 * One subtask of a chain of operators, run by its own thread through a mailbox loop
 * (ARCHITECTURE.md "Threads and data flow"; PROTOCOL.md §3). Subclasses supply the default action:
 * poll a source ({@link SourceStreamTask}) or read the input gate ({@link InputStreamTask}).
 *
 * <p>The {@link TaskCheckpointGateway} methods may be called from any thread; they only enqueue
 * mails. {@link #cancel()} and {@link #state()} may be called from any thread. Everything else runs
 * on the task thread.
 *
 * <p>Lifecycle ({@link TaskState}, changed only through {@link TaskStateMachine}): the task thread
 * moves DEPLOYING → RUNNING → FINISHING → FINISHED or ends in FAILED; {@link #cancel()} ends it in
 * CANCELED from any live state. Each change is one compare-and-set, so a cancel racing with the
 * end of the task leaves exactly one terminal state, and the {@link TaskListener} hears at most one
 * of {@code onFinished}/{@code onFailed} — and neither if the cancel won. A listener is told about
 * a state only by the thread whose transition entered it.
 */
public abstract class StreamTask implements Runnable, TaskCheckpointGateway, ChannelIO {
    private static final Logger LOG = LoggerFactory.getLogger(StreamTask.class);
    /** Longest wait when nothing is available, ns; a signal ends it earlier. */
    protected static final long IDLE_WAIT_NANOS = 50_000_000L;

    protected final TaskDeployment deployment;
    protected final TaskServices services;
    protected final TaskMailbox mailbox = new TaskMailbox();
    protected final MailboxProcessor processor;
    /** Task thread only; built in {@link #initialize()}, null before. */
    private OperatorChain chain;
    /** Task thread only; the chain's operators, head first, set in {@link #initialize()} (empty before). */
    protected List<ChainedOperator> operators = List.of();
    /** Task thread only. */
    protected SubtaskCheckpointCoordinator checkpoints;
    /** Task thread only: the tail's output fanning out to every writer. */
    protected Output tailOutput;
    /** Task thread only: the last watermark sent downstream. */
    private long lastWatermarkOut = Long.MIN_VALUE;
    /** Thread-safe; see the class comment for who moves it. */
    private final TaskStateMachine state;
    /**
     * {@code deployment.writers()} as an array, for {@link #outputAvailable()}, which runs once per record: iterating
     * the list allocated an iterator per record (3.7 of the counter threads' 47 GB allocated in a 25 s
     * {@code throughput-16} run, JFR). Never modified after the constructor.
     */
    private final RecordWriter[] writerArray;
    /** The task thread once {@link #run()} started, else null; read by {@link #cancel()} to interrupt it. */
    private volatile Thread thread;
    /**
     * Task thread only: id of the final checkpoint's barrier this task forwarded, 0 if none. The final checkpoint
     * is the one after all input (FINAL), or the savepoint of a stop-with-savepoint: the task ends once notified
     * of its completion.
     */
    private long finalCheckpointId;

    protected StreamTask(TaskDeployment deployment, TaskServices services) {
        this.deployment = deployment;
        this.writerArray = deployment.writers().toArray(new RecordWriter[0]);
        this.services = services;
        this.processor = new MailboxProcessor(mailbox, this::runDefaultAction);
        this.state = new TaskStateMachine(deployment.jobName() + "/" + deployment.taskId());
        if (deployment.outputPool() != null) {
            deployment.outputPool().addAvailabilityListener(mailbox::wakeUp);
        }
    }

    /** One step of work; see {@link MailboxProcessor.DefaultAction}. */
    protected abstract long runDefaultAction() throws Exception;

    /** Creates the chain head's own snapshot participant (a source reader), or null. */
    protected abstract SnapshotParticipant headParticipant() throws Exception;

    @Override
    public TaskId taskId() {
        return deployment.taskId();
    }

    @Override
    public boolean isRunning() {
        TaskState s = state.current();
        return s == TaskState.RUNNING || s == TaskState.FINISHING;
    }

    /** @return the current state; thread-safe */
    public TaskState state() {
        return state.current();
    }

    /**
     * The task thread: initialize, run the mailbox loop, end in FINISHED, FAILED or CANCELED and
     * tell the listener about the state this thread entered (never about a cancellation).
     */
    @Override
    public void run() {
        thread = Thread.currentThread();
        try {
            if (state.current().isTerminal()) {
                LOG.debug("Task {} of job {} was cancelled before it started", taskId(), deployment.jobName());
                return;
            }
            initialize();
            if (!state.transition(TaskState.DEPLOYING, TaskState.RUNNING)) {
                LOG.debug("Task {} of job {} was cancelled while deploying", taskId(), deployment.jobName());
                return;
            }
            services.listener().onRunning(taskId());
            processor.runMailboxLoop();
            if (finalCheckpointId > 0 && state.transition(TaskState.FINISHING, TaskState.FINISHED)) {
                LOG.info("Task {} of job {} finished", taskId(), deployment.jobName());
                services.listener().onFinished(taskId());
            } else if (!state.current().isTerminal()) {
                throw new IllegalStateException("the mailbox loop of task " + taskId() + " ended in state " + state.current()
                        + " without the final checkpoint or a cancellation");
            }
        } catch (Throwable t) {
            TaskState left = state.terminate(TaskState.FAILED);
            if (left != null) {
                LOG.warn("Task {} of job {} failed (was {})", taskId(), deployment.jobName(), left, t);
                services.listener().onFailed(taskId(), t);
            } else if (state.current() == TaskState.CANCELED) {
                LOG.debug("Task {} of job {} ended by cancellation: {}", taskId(), deployment.jobName(), t.toString());
            } else {
                // e.g. the listener threw in onFinished: the task's outcome stands, it is not reported twice
                LOG.warn("Task {} of job {} already ended {}; error after that not reported as a failure", taskId(),
                        deployment.jobName(), state.current(), t);
            }
        } finally {
            mailbox.close();
            closeAll();
        }
    }

    /**
     * Stops the task (failover or job cancellation); thread-safe, returns at once. Ends a live task
     * in CANCELED, stops its mailbox loop and interrupts its thread. A task that already ended
     * (FINISHED, FAILED, CANCELED) keeps its state and is not interrupted, so a second cancel, or a
     * cancel racing with the task's own end, changes nothing.
     */
    public void cancel() {
        TaskState left = state.terminate(TaskState.CANCELED);
        if (left == null) {
            LOG.debug("Cancel of task {} of job {} ignored: it already ended {}", taskId(), deployment.jobName(), state.current());
            return;
        }
        LOG.debug("Task {} of job {} cancelled (was {})", taskId(), deployment.jobName(), left);
        processor.stop();
        Thread t = thread;
        if (t != null) {
            t.interrupt();
        }
    }

    /**
     * Waits up to {@code timeoutMs} for the task thread to end; logs where it is stuck otherwise.
     *
     * @return whether the thread ended (or never started)
     */
    public boolean join(long timeoutMs) throws InterruptedException {
        Thread t = thread;
        if (t == null) {
            return true;
        }
        t.join(timeoutMs);
        if (t.isAlive()) {
            Throwable where = new Throwable("stack of " + t.getName());
            where.setStackTrace(t.getStackTrace());
            LOG.warn("Task {} of job {} did not stop within {} ms of being cancelled", taskId(), deployment.jobName(), timeoutMs, where);
            return false;
        }
        return true;
    }

    /**
     * Builds the {@link OperatorChain}, restores state and opens the chain: {@code initializeState} then {@code open}
     * per operator, then the head if it is a source reader.
     */
    private void initialize() throws Exception {
        chain = new OperatorChain(deployment, services, mailbox);
        chain.build(headParticipant(), checkpointInterval());
        operators = chain.operators();
        tailOutput = chain.tailOutput();
        checkpoints = new SubtaskCheckpointCoordinator(deployment.jobName(), taskId(), chain.participants(),
                chain::prepareSnapshotPreBarrier, this, services.storage(), services.responder(), services.asyncOperations());
        chain.initializeStateAndOpen();
        openHead();
    }

    /** Initializes and opens the chain head when it is not a {@link StreamOperator} (a source reader). */
    protected void openHead() throws Exception {
    }

    /** @return the output that feeds the first chained operator (or the writers if there is none) */
    protected Output chainInput() {
        return operators.isEmpty() ? tailOutput : operators.get(0).asOutput();
    }

    /** Creates an operator state backend for the chain head (a source reader); the chain closes it. */
    protected OperatorStateBackend createOperatorStateBackend(String operatorId, OperatorSubtaskState restore) throws Exception {
        return chain.createOperatorStateBackend(operatorId, restore);
    }

    /** @return {@code execution.checkpointing.interval} of the job in ms, empty when periodic checkpointing is off */
    protected java.util.OptionalLong checkpointInterval() {
        Long interval = deployment.config().get(io.weir.core.config.CheckpointingOptions.INTERVAL);
        return interval == null ? java.util.OptionalLong.empty() : java.util.OptionalLong.of(interval);
    }

    /**
     * The factory a vertex is built with: the one the job was bound to when it was parsed ({@link JobVertex#plugin()}),
     * so a job never switches plugin versions behind the node's back (a restart after a failure uses the same one);
     * for a vertex built by hand, {@code byType} (the registry's current factory of the type).
     *
     * @throws IllegalStateException if the vertex is unbound and the type is not installed
     */
    protected static <F> F factory(JobVertex v, Class<F> kind, java.util.Optional<F> byType) {
        if (v.plugin() != null) {
            return kind.cast(v.plugin().factory());
        }
        return byType.orElseThrow(() -> missingPlugin(v));
    }

    protected static IllegalStateException missingPlugin(JobVertex v) {
        return new IllegalStateException("plugin type '" + v.type() + "' of operator '" + v.id()
                + "' is no longer installed; reinstall its bundle into plugins/");
    }

    /**
     * The task's watermark rose to {@code watermark} (from its input valve, or its source's generator): every
     * operator of the chain, head to tail, fires its due event-time timers and sees the watermark; then it goes
     * downstream behind all rows emitted so far. Runs in the mailbox step that took the watermark. Task thread.
     *
     * @throws Exception from an operator; fails the task
     */
    protected void processWatermark(long watermark) throws Exception {
        if (watermark <= lastWatermarkOut) {
            return;
        }
        chain.advanceWatermark(watermark);
        lastWatermarkOut = watermark;
        broadcastEvent(new io.weir.runtime.io.network.Watermark(watermark));
    }

    /** Tells downstream that this task became idle or active again (see {@link io.weir.runtime.io.network.WatermarkStatus}). */
    protected void emitWatermarkStatus(boolean idle) {
        broadcastEvent(idle ? io.weir.runtime.io.network.WatermarkStatus.IDLE : io.weir.runtime.io.network.WatermarkStatus.ACTIVE);
    }

    /** Sends an event on every output channel behind all data. */
    @Override
    public void broadcastEvent(Object event) {
        for (RecordWriter w : deployment.writers()) {
            w.broadcastEvent(event);
        }
    }

    @Override
    public List<CompletableFuture<List<byte[]>>> broadcastBarrier(CheckpointBarrier barrier) {
        List<CompletableFuture<List<byte[]>>> overtaken = new ArrayList<>();
        for (RecordWriter w : deployment.writers()) {
            overtaken.addAll(w.broadcastBarrier(barrier));
        }
        CheckpointOptions options = barrier.options();
        if (options.alignment() == CheckpointAlignment.ALIGNED_WITH_TIMEOUT && !deployment.writers().isEmpty()) {
            // a barrier waiting in an output queue longer than the timeout overtakes the data before it
            long delay = Math.max(0, barrier.timestamp() + options.alignedTimeoutMs() - System.currentTimeMillis());
            List<RecordWriter> writers = deployment.writers();
            services.timers().schedule(() -> writers.forEach(w -> w.convertToPriority(barrier.checkpointId())),
                    delay, TimeUnit.MILLISECONDS);
        }
        return overtaken;
    }

    @Override
    public CompletableFuture<RecordedInput> inputChannelState(long checkpointId) {
        return CompletableFuture.completedFuture(RecordedInput.NONE);
    }

    /** @return whether every writer can take a record (false = backpressured) */
    protected boolean outputAvailable() {
        for (RecordWriter w : writerArray) {
            if (!w.isAvailable()) {
                return false;
            }
        }
        return true;
    }

    /** Runs {@code checkpointState} for a barrier (task thread). */
    protected void performCheckpoint(CheckpointBarrier barrier, BarrierAlignment alignment) {
        if (barrier.options().isFinal()) {
            finalCheckpointId = barrier.checkpointId();
        }
        checkpoints.checkpointState(barrier, alignment);
    }

    /**
     * All input is processed: finish the chain head to tail, flush, send end-of-data downstream and
     * wait for the final checkpoint (task thread).
     */
    protected void finishData() throws Exception {
        chain.finish();
        broadcastEvent(EndOfData.INSTANCE);
        if (!state.transition(TaskState.RUNNING, TaskState.FINISHING)) {
            return; // cancelled meanwhile: the mailbox loop is stopping
        }
        LOG.info("Task {} of job {} processed all input; waiting for the final checkpoint", taskId(), deployment.jobName());
        services.listener().onFinishedData(taskId());
    }

    /** Sends every partly filled buffer (buffer timeout); thread-safe, runs as a mail. */
    public void requestFlush() {
        if (state.current() == TaskState.RUNNING) {
            mailbox.put(new Mail("flush output", () -> deployment.writers().forEach(RecordWriter::flushAll)));
        }
    }

    @Override
    public void triggerCheckpoint(long checkpointId, long timestamp, CheckpointOptions options) {
        mailbox.put(new Mail("trigger checkpoint " + checkpointId, () -> {
            long startDelay = Math.max(0, System.currentTimeMillis() - timestamp);
            performCheckpoint(new CheckpointBarrier(checkpointId, timestamp, options), new BarrierAlignment(startDelay, 0, 0));
        }));
    }

    @Override
    public void notifyCheckpointComplete(long checkpointId) {
        mailbox.put(new Mail("notify checkpoint " + checkpointId + " complete", () -> {
            checkpoints.notifyCheckpointComplete(checkpointId);
            chain.checkpointCompleted();
            // RUNNING here: a stop-with-savepoint without drain, which ends the task without end-of-input
            if (finalCheckpointId > 0 && checkpointId >= finalCheckpointId && (state.current() == TaskState.FINISHING
                    || state.transition(TaskState.RUNNING, TaskState.FINISHING))) {
                processor.stop();
            }
        }));
    }

    @Override
    public void notifyCheckpointAborted(long checkpointId) {
        mailbox.put(new Mail("notify checkpoint " + checkpointId + " aborted", () -> checkpoints.notifyCheckpointAborted(checkpointId)));
    }

    /** Closes operators and backends and releases network buffers; never throws. */
    private void closeAll() {
        if (chain != null) {
            chain.closeOperators();
        }
        closeHead();
        for (RecordWriter w : deployment.writers()) {
            w.release();
        }
        if (deployment.inputGate() != null) {
            deployment.inputGate().releaseAll();
        }
        if (chain != null) {
            chain.closeBackends();
        }
    }

    /** Closes the chain head when it is not a {@link StreamOperator}. */
    protected void closeHead() {
    }

    /** @return a debug label */
    @Override
    public String toString() {
        return deployment.jobName() + "/" + taskId();
    }

    /** Processes one row through the chain head. */
    protected void processRow(Row row) throws Exception {
        operators.get(0).process(row);
    }
}
