package io.weir.runtime.tasks;

import io.weir.api.source.PollStatus;
import io.weir.api.source.SourceReader;
import io.weir.core.barrier.BarrierAlignment;
import io.weir.core.checkpoint.CheckpointBarrier;
import io.weir.core.checkpoint.OperatorSubtaskState;
import io.weir.core.job.JobVertex;
import io.weir.core.state.OperatorStateBackend;
import io.weir.runtime.checkpoint.SnapshotParticipant;
import io.weir.runtime.mailbox.Mail;
import io.weir.runtime.operators.DefaultOperatorContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A task whose chain starts with a source reader. Its default action polls the reader while the
 * outputs have buffers; when they have none (backpressure) it only runs mails, so a checkpoint
 * trigger is never stuck behind a blocked emit (PROTOCOL.md §3).
 */
public final class SourceStreamTask extends StreamTask {
    private static final Logger LOG = LoggerFactory.getLogger(SourceStreamTask.class);

    /** Task thread only. */
    private SourceReader reader;
    /** Task thread only. */
    private DefaultOperatorContext readerContext;
    /** Task thread only: watermarks of a source with a timestamp-field, else null. */
    private io.weir.runtime.time.SourceWatermarkGenerator watermarks;
    /** Task thread only: what the reader emits into (the chain, behind the watermark generator if any). */
    private io.weir.api.operator.Output readerOutput;
    /** Task thread only. */
    private java.util.concurrent.ScheduledFuture<?> watermarkTimer;
    private final io.weir.runtime.time.SourceWatermarkGenerator.Emitter emitter = new io.weir.runtime.time.SourceWatermarkGenerator.Emitter() {
        @Override
        public void emitWatermark(long watermark) throws Exception {
            processWatermark(watermark);
        }

        @Override
        public void emitIdle(boolean idle) {
            emitWatermarkStatus(idle);
        }
    };

    /** @param deployment a chain whose head is a source vertex */
    public SourceStreamTask(TaskDeployment deployment, TaskServices services) {
        super(deployment, services);
    }

    @Override
    public boolean isSource() {
        return true;
    }

    @Override
    protected SnapshotParticipant headParticipant() throws Exception {
        JobVertex v = deployment.chain().get(0);
        OperatorSubtaskState restore = deployment.restoreState().getOrDefault(v.id(), OperatorSubtaskState.empty());
        OperatorStateBackend opState = createOperatorStateBackend(v.id(), restore);
        reader = factory(v, io.weir.api.plugin.SourceFactory.class, services.plugins().source(v.type())).create(v.config(), v.outputSchema());
        readerContext = new DefaultOperatorContext(deployment.jobName(), v.id(), taskId().subtaskIndex(), v.parallelism(),
                deployment.restored(), opState, null, checkpointInterval());
        return new SnapshotParticipant(v.id(), reader::snapshotState, opState, null, reader);
    }

    @Override
    protected void openHead() throws Exception {
        reader.initializeState(readerContext);
        JobVertex v = deployment.chain().get(0);
        io.weir.core.config.WatermarkSettings settings = io.weir.core.config.WatermarkSettings.of(v.config(), v.outputSchema());
        readerOutput = chainInput();
        if (settings != null) {
            long interval = deployment.config().get(io.weir.core.config.ExecutionOptions.AUTO_WATERMARK_INTERVAL);
            watermarks = new io.weir.runtime.time.SourceWatermarkGenerator(settings, interval);
            readerOutput = watermarks.wrap(readerOutput);
            io.weir.runtime.time.SourceWatermarkGenerator generator = watermarks;
            watermarkTimer = services.timers().scheduleAtFixedRate(() -> mailbox.put(new Mail("periodic watermark",
                    () -> {
                        if (state() == TaskState.RUNNING) {
                            generator.onPeriodicEmit(emitter);
                        }
                    })), interval, interval, java.util.concurrent.TimeUnit.MILLISECONDS);
            LOG.info("Source {} of job {} assigns event time from field '{}' (out-of-orderness {} ms, idle timeout {} ms, "
                    + "watermark every {} ms)", taskId(), deployment.jobName(), settings.extractor().field(),
                    settings.maxOutOfOrdernessMs(), settings.idleTimeoutMs(), interval);
        }
    }

    /** End of input or drain: the last watermark ({@link Long#MAX_VALUE}) goes before end-of-data. */
    private void endWatermarks() throws Exception {
        if (watermarks != null) {
            watermarkTimer.cancel(false);
            watermarks.onEndOfInput(emitter);
        }
    }

    @Override
    protected long runDefaultAction() throws Exception {
        if (!outputAvailable()) {
            return IDLE_WAIT_NANOS; // a recycled buffer wakes us
        }
        PollStatus status = reader.pollNext(readerOutput);
        return switch (status) {
            case MORE_AVAILABLE -> 0;
            case NOTHING_AVAILABLE -> Math.max(1, reader.idleWaitNanos());
            case END_OF_INPUT -> {
                LOG.debug("Source {} reached the end of its input", taskId());
                processor.suspendDefaultAction();
                endWatermarks();
                finishData();
                yield 0;
            }
        };
    }

    /**
     * Stop-with-savepoint: a final barrier reaching a source that still reads (no drain) stops its reading
     * right after the barrier, so nothing is emitted after the savepoint's cut; the task then ends once
     * notified of the savepoint's completion (Flink's synchronous savepoint). Task thread.
     */
    @Override
    protected void performCheckpoint(CheckpointBarrier barrier, BarrierAlignment alignment) {
        super.performCheckpoint(barrier, alignment);
        if (barrier.options().isFinal() && state() == TaskState.RUNNING) {
            LOG.info("Source {} of job {} stops reading at savepoint {} (stop-with-savepoint)", taskId(),
                    deployment.jobName(), barrier.checkpointId());
            processor.suspendDefaultAction();
            if (watermarkTimer != null) {
                watermarkTimer.cancel(false); // nothing is emitted after the savepoint's cut, no watermark or idleness either
            }
        }
    }

    /**
     * Stop-with-savepoint with drain: the source ends its input as if it were exhausted, so every operator is
     * finished and flushed before the final savepoint (end-of-input semantics). Thread-safe; runs as a mail;
     * does nothing if the source already reached its end or the task is no longer running.
     */
    public void endInput() {
        mailbox.put(new Mail("end input (stop-with-savepoint, drain)", () -> {
            if (state() == TaskState.RUNNING) {
                LOG.info("Source {} of job {} ends its input (stop-with-savepoint with drain)", taskId(), deployment.jobName());
                processor.suspendDefaultAction();
                endWatermarks();
                finishData();
            }
        }));
    }

    @Override
    protected void closeHead() {
        if (watermarkTimer != null) {
            watermarkTimer.cancel(false);
        }
        if (reader != null) {
            try {
                reader.close();
            } catch (Throwable t) {
                LOG.warn("Closing source reader of task {} failed", taskId(), t);
            }
        }
    }
}
