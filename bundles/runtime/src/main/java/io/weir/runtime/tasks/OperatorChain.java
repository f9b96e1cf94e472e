package io.weir.runtime.tasks;

import io.weir.api.Row;
import io.weir.api.RowSerializer;
import io.weir.api.operator.Output;
import io.weir.api.operator.StreamOperator;
import io.weir.api.plugin.SinkFactory;
import io.weir.core.checkpoint.OperatorSubtaskState;
import io.weir.core.checkpoint.TaskId;
import io.weir.core.config.ExecutionOptions;
import io.weir.core.job.JobVertex;
import io.weir.core.state.KeyGroupAssignment;
import io.weir.core.state.KeyGroupRange;
import io.weir.core.state.KeyedStateBackend;
import io.weir.core.state.KeyedStateBackendParameters;
import io.weir.core.state.OperatorStateBackend;
import io.weir.runtime.checkpoint.SnapshotParticipant;
import io.weir.runtime.io.network.RecordWriter;
import io.weir.runtime.mailbox.TaskMailbox;
import io.weir.runtime.operators.DefaultOperatorContext;
import io.weir.runtime.operators.TwoPhaseCommitSinkOperator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;

/**
 * The chained operators of one task (as Flink's {@code OperatorChain}): builds them from the task's deployment —
 * their state backends (restored), timer services and contexts — wires each one's output into the next and the
 * tail's into the record writers, and drives them in chain order: {@code initializeState} + {@code open} head to
 * tail, {@code prepareSnapshotPreBarrier}, watermarks, {@code finish}, completed-checkpoint counts, and
 * {@code close}. A source chain's head (the reader) is not a {@link StreamOperator}: the {@link SourceStreamTask}
 * owns it, and only its operator state backend is created here so that it is closed with the others.
 *
 * <p>Task thread only. The per-record path does not go through this class: the task keeps the built operators
 * ({@link #operators()}) and calls the head directly.
 */
final class OperatorChain {
    private static final Logger LOG = LoggerFactory.getLogger(OperatorChain.class);

    private final TaskDeployment deployment;
    private final TaskServices services;
    private final TaskMailbox mailbox;
    /** Task thread only; filled by {@link #build}, head first. */
    private final List<ChainedOperator> operators = new ArrayList<>();
    /** Task thread only; filled by {@link #build}: the head reader's (if any), then each operator's, in chain order. */
    private final List<SnapshotParticipant> participants = new ArrayList<>();
    /** Task thread only: every keyed backend created, closed by {@link #closeBackends}. */
    private final List<KeyedStateBackend> keyedBackends = new ArrayList<>();
    /** Task thread only: every operator state backend created (the head reader's too), closed by {@link #closeBackends}. */
    private final List<OperatorStateBackend> operatorBackends = new ArrayList<>();
    /** Task thread only: timer services of keyed operators in the chain. */
    private final List<io.weir.runtime.time.KeyedTimerService> timerServices = new ArrayList<>();
    /** Task thread only, set while the chain is built: writers of the tail's side outputs by name. */
    private final Map<String, List<RecordWriter>> sideWriters = new HashMap<>();
    /** Task thread only; set by {@link #build}: the tail's output fanning out to every writer. */
    private Output tailOutput;

    /**
     * An empty chain; {@link #build} adds the operators.
     *
     * @param deployment the task's chain, restore state, writers and configuration
     * @param services plugins and state backends the operators are created with
     * @param mailbox the task's mailbox, which runs the processing-time timers
     */
    OperatorChain(TaskDeployment deployment, TaskServices services, TaskMailbox mailbox) {
        this.deployment = deployment;
        this.services = services;
        this.mailbox = mailbox;
    }

    private TaskId taskId() {
        return deployment.taskId();
    }

    /**
     * Creates an operator state backend restored from {@code restore}; the chain closes it.
     *
     * @throws Exception from the state backend
     */
    OperatorStateBackend createOperatorStateBackend(String operatorId, OperatorSubtaskState restore) throws Exception {
        OperatorStateBackend b = services.stateBackend().createOperatorStateBackend(operatorId, restore.operatorState());
        operatorBackends.add(b);
        return b;
    }

    /**
     * Creates the chain's operators (all vertices of the deployment's chain but a source head), their state
     * backends, timers and contexts, and wires the outputs tail to head. Does not open them ({@link #open}).
     *
     * @param head the snapshot participant of a source head, or null when the head is an operator
     * @param checkpointInterval {@code execution.checkpointing.interval} in ms, empty when periodic checkpointing is off
     * @throws IllegalStateException if a vertex's plugin is not installed, or a source is not the head
     * @throws Exception from a state backend or a plugin factory
     */
    void build(SnapshotParticipant head, OptionalLong checkpointInterval) throws Exception {
        List<JobVertex> chain = deployment.chain();
        int maxParallelism = deployment.config().get(ExecutionOptions.MAX_PARALLELISM);
        if (head != null) {
            participants.add(head);
        }
        for (int i = head == null ? 0 : 1; i < chain.size(); i++) {
            JobVertex v = chain.get(i);
            OperatorSubtaskState restore = deployment.restoreState().getOrDefault(v.id(), OperatorSubtaskState.empty());
            OperatorStateBackend opState = createOperatorStateBackend(v.id(), restore);
            KeyedStateBackend keyed = null;
            if (v.keyed()) {
                KeyGroupRange range = KeyGroupAssignment.rangeForSubtask(maxParallelism, v.parallelism(), taskId().subtaskIndex());
                keyed = services.stateBackend().createKeyedStateBackend(new KeyedStateBackendParameters(deployment.jobName(), v.id(),
                        taskId().subtaskIndex(), maxParallelism, range, new RowSerializer(deployment.headKeySelector().keySchema()),
                        restore.keyedState(), deployment.config()));
                keyedBackends.add(keyed);
            }
            StreamOperator op = switch (v.kind()) {
                case OPERATOR -> StreamTask.factory(v, io.weir.api.plugin.OperatorFactory.class, services.plugins().operator(v.type()))
                        .create(v.config(), v.inputSchema());
                case SINK -> sinkOperator(StreamTask.factory(v, SinkFactory.class, services.plugins().sink(v.type())), v);
                case SOURCE -> throw new IllegalStateException("source " + v.id() + " inside a chain");
            };
            io.weir.runtime.time.KeyedTimerService timers = null;
            io.weir.api.operator.TimerService contextTimers = null;
            ChainedOperator[] self = new ChainedOperator[1]; // the wake-up mail runs after the chain is built
            if (keyed != null) {
                try {
                    timers = new io.weir.runtime.time.KeyedTimerService(keyed, new io.weir.runtime.time.MailboxTimeScheduler(
                            services.timers(), mailbox, "processing-time timers of " + v.id(), () -> self[0].fireProcessingTimers()));
                    timerServices.add(timers);
                    contextTimers = timers;
                } catch (UnsupportedOperationException noTimers) {
                    // a backend without timers (RocksDB today) runs keyed operators that do not use them
                    contextTimers = io.weir.runtime.time.KeyedTimerService.unsupported(noTimers.getMessage());
                }
            }
            DefaultOperatorContext ctx = new DefaultOperatorContext(deployment.jobName(), v.id(), taskId().subtaskIndex(),
                    v.parallelism(), deployment.restored(), opState, keyed, checkpointInterval, contextTimers, this::emitSideOutput);
            boolean injectFailure = taskId().attempt() == 0 && taskId().subtaskIndex() == 0
                    && v.id().equals(deployment.config().get(ExecutionOptions.INJECT_FAILURE_OPERATOR));
            ChainedOperator co = new ChainedOperator(v.id(), op, ctx, i == 0 ? deployment.headKeySelector() : null, maxParallelism,
                    injectFailure ? deployment.config().get(ExecutionOptions.INJECT_FAILURE_AFTER_RECORDS) : 0L,
                    deployment.config().get(ExecutionOptions.INJECT_FAILURE_AFTER_CHECKPOINTS));
            co.timers = timers;
            self[0] = co;
            operators.add(co);
            participants.add(new SnapshotParticipant(v.id(), op::snapshotState, opState, keyed, op));
        }
        // wire outputs tail to head
        List<RecordWriter> writers = new ArrayList<>();
        for (RecordWriter w : deployment.writers()) {
            if (w.sideOutput() == null) {
                writers.add(w);
            } else {
                sideWriters.computeIfAbsent(w.sideOutput(), k -> new ArrayList<>()).add(w);
            }
        }
        tailOutput = writersOutput(writers);
        Output next = tailOutput;
        for (int i = operators.size() - 1; i >= 0; i--) {
            operators.get(i).output = next;
            next = operators.get(i).asOutput();
        }
    }

    /**
     * @return an output that serializes each row into every writer (none: rows are dropped) before it returns, so it
     *         keeps no row ({@link Output#retainsRows()} false) and the tail operator may emit a reused one
     */
    private static Output writersOutput(List<RecordWriter> writers) {
        RecordWriter[] all = writers.toArray(new RecordWriter[0]);
        return new Output() {
            @Override
            public void collect(Row row) {
                for (RecordWriter w : all) {
                    w.emit(row);
                }
            }

            @Override
            public boolean retainsRows() {
                return false;
            }
        };
    }

    /** @return the chained operators, head first (empty for a source with no operator chained to it) */
    List<ChainedOperator> operators() {
        return operators;
    }

    /** @return what is snapshotted, in chain order: the source reader (if any), then each operator */
    List<SnapshotParticipant> participants() {
        return participants;
    }

    /** @return the tail's output: every (non-side-output) record writer */
    Output tailOutput() {
        return tailOutput;
    }

    /**
     * Restores and opens the operators head to tail: {@code initializeState} then {@code open} per operator.
     *
     * @throws Exception from an operator; fails the task
     */
    void initializeStateAndOpen() throws Exception {
        for (ChainedOperator co : operators) {
            co.operator.initializeState(co.context);
            co.operator.open();
        }
    }

    /**
     * {@code prepareSnapshotPreBarrier} on every operator, head to tail (PROTOCOL.md §3 step 1).
     *
     * @throws Exception from an operator; declines the checkpoint
     */
    void prepareSnapshotPreBarrier(long checkpointId) throws Exception {
        for (ChainedOperator co : operators) {
            co.operator.prepareSnapshotPreBarrier(checkpointId, co.output);
        }
    }

    /**
     * Every operator, head to tail, fires its due event-time timers and sees {@code watermark}.
     *
     * @throws Exception from an operator; fails the task
     */
    void advanceWatermark(long watermark) throws Exception {
        for (ChainedOperator co : operators) {
            co.advanceWatermark(watermark);
        }
    }

    /**
     * All input is processed: {@code finish} on every operator, head to tail.
     *
     * @throws Exception from an operator; fails the task
     */
    void finish() throws Exception {
        for (ChainedOperator co : operators) {
            co.operator.finish(co.output);
        }
    }

    /** Counts a completed checkpoint on every operator (for an injected failure's condition). */
    void checkpointCompleted() {
        for (ChainedOperator co : operators) {
            co.checkpointCompleted();
        }
    }

    /** Closes the timer services and the operators, head to tail; never throws (failures are logged). */
    void closeOperators() {
        timerServices.forEach(io.weir.runtime.time.KeyedTimerService::close);
        for (ChainedOperator co : operators) {
            try {
                co.operator.close();
            } catch (Throwable t) {
                LOG.warn("Closing operator {} of task {} failed", co.operatorId, taskId(), t);
            }
        }
    }

    /** Closes every state backend the chain created, after the operators and the head are closed. */
    void closeBackends() {
        keyedBackends.forEach(KeyedStateBackend::close);
        operatorBackends.forEach(OperatorStateBackend::close);
    }

    /**
     * Emits a row of a side output (only the chain's tail has side output edges: an operator with one is never
     * chained to its successor). Rows of a side output without consumers are dropped. Task thread.
     */
    private void emitSideOutput(String name, Row row) {
        List<RecordWriter> ws = sideWriters.get(name);
        if (ws != null) {
            for (RecordWriter w : ws) {
                w.emit(row);
            }
        }
    }

    private static <T> StreamOperator sinkOperator(SinkFactory factory, JobVertex v) {
        @SuppressWarnings("unchecked")
        io.weir.api.sink.TwoPhaseCommittingSink<T> sink = (io.weir.api.sink.TwoPhaseCommittingSink<T>) factory.create(v.config(), v.inputSchema());
        return new TwoPhaseCommitSinkOperator<>(sink);
    }
}
