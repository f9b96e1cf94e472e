package io.weir.runtime.tasks;

import io.weir.api.Row;
import io.weir.core.barrier.BarrierAlignment;
import io.weir.core.barrier.BarrierHandlerContext;
import io.weir.core.barrier.CheckpointBarrierHandler;
import io.weir.core.checkpoint.CancelCheckpointMarker;
import io.weir.core.checkpoint.CheckpointBarrier;
import io.weir.core.checkpoint.CheckpointFailureReason;
import io.weir.runtime.checkpoint.SnapshotParticipant;
import io.weir.runtime.io.network.EndOfData;
import io.weir.runtime.io.network.InputGate;
import io.weir.runtime.io.network.KeySelector;
import io.weir.runtime.io.network.NetworkBuffer;
import io.weir.runtime.io.network.RecordDeserializer;

/**
 * A task whose chain starts with an operator fed by an input gate. Barriers, cancel markers and
 * end-of-data events are intercepted before the operator and handed to the
 * {@link CheckpointBarrierHandler} (the {@code CheckpointedInputGate} of PROTOCOL.md §4).
 */
public final class InputStreamTask extends StreamTask implements BarrierHandlerContext {
    private final InputGate gate;
    private final RecordDeserializer deserializer = new RecordDeserializer();
    /**
     * Task thread only: decodes the input rows; after {@link #openHead} only the fields the chain head reads
     * ({@link io.weir.api.operator.StreamOperator#inputFieldsRead}) and its key fields.
     */
    private io.weir.api.RowSerializer inputSerializer;
    /**
     * The row every input record is read into when the chain head keeps no input row, else null (a new row per
     * record); set in {@link #openHead()}. Task thread only.
     */
    private Row.Reusable inputReuse;
    /** Task thread only. */
    private CheckpointBarrierHandler barrierHandler;
    /** Task thread only: in-flight input of unaligned checkpoints still being recorded, by checkpoint id. */
    private final java.util.TreeMap<Long, InflightRecording> recordings = new java.util.TreeMap<>();
    /** Buffer debloating every {@value #DEBLOAT_PERIOD_MS} ms, or null when disabled. Task thread only. */
    private final io.weir.runtime.io.network.BufferDebloater debloater;
    private static final long DEBLOAT_PERIOD_MS = 100;
    private static final org.slf4j.Logger DEBLOAT_LOG = org.slf4j.LoggerFactory.getLogger(io.weir.runtime.io.network.BufferDebloater.class);
    /** Task thread only. */
    private java.util.concurrent.ScheduledFuture<?> debloatTimer;
    /** Whether a debloat mail is queued and not yet run; set by the timer thread, cleared by the task thread. */
    private final java.util.concurrent.atomic.AtomicBoolean debloatPending = new java.util.concurrent.atomic.AtomicBoolean();
    /** Task thread only: bytes of input buffers taken so far. */
    private long consumedBytes;
    /** Task thread only: channels that delivered end-of-data. */
    private final boolean[] endOfData;
    /** Task thread only. */
    private int endOfDataCount;
    /** Task thread only: the task's watermark from its channels' watermarks and idle statuses. */
    private final io.weir.runtime.time.StatusWatermarkValve valve;

    /** @param deployment a chain whose head is an operator or sink with an input gate */
    public InputStreamTask(TaskDeployment deployment, TaskServices services) {
        super(deployment, services);
        this.gate = deployment.inputGate();
        this.inputSerializer = deployment.inputSerializer();
        gate.setDataAvailableListener(mailbox::wakeUp);
        io.weir.core.config.Configuration config = deployment.config();
        this.debloater = config.get(io.weir.core.config.ExecutionOptions.BUFFER_DEBLOAT_ENABLED)
                ? new io.weir.runtime.io.network.BufferDebloater(config.get(io.weir.core.config.ExecutionOptions.BUFFER_DEBLOAT_TARGET),
                        config.get(io.weir.core.config.ExecutionOptions.BUFFER_SIZE),
                        java.util.concurrent.TimeUnit.MILLISECONDS.toNanos(DEBLOAT_PERIOD_MS) / 2)
                : null;
        this.endOfData = new boolean[gate.numberOfChannels()];
        this.valve = new io.weir.runtime.time.StatusWatermarkValve(gate.numberOfChannels(),
                new io.weir.runtime.time.StatusWatermarkValve.Output() {
                    @Override
                    public void emitWatermark(long watermark) throws Exception {
                        processWatermark(watermark);
                    }

                    @Override
                    public void emitIdle(boolean idle) {
                        emitWatermarkStatus(idle);
                    }
                });
    }

    @Override
    public boolean isSource() {
        return false;
    }

    @Override
    protected SnapshotParticipant headParticipant() {
        barrierHandler = services.barrierHandlers().create(this, deployment.config(), toString());
        if (debloater != null) {
            debloatTimer = services.timers().scheduleAtFixedRate(() -> {
                // one update at a time: updates queued behind a stalled task thread would measure nothing
                if (debloatPending.compareAndSet(false, true)) {
                    mailbox.put(new io.weir.runtime.mailbox.Mail("debloat buffers", this::debloat));
                }
            }, DEBLOAT_PERIOD_MS, DEBLOAT_PERIOD_MS, java.util.concurrent.TimeUnit.MILLISECONDS);
        }
        return null;
    }

    /** The periodic debloat step: measures, then asks the producers for the computed buffer size. Task thread only. */
    private void debloat() {
        debloatPending.set(false);
        int inFlight = gate.buffersInFlight();
        int size = debloater.update(consumedBytes, System.nanoTime(), inFlight);
        if (DEBLOAT_LOG.isDebugEnabled()) {
            DEBLOAT_LOG.debug("Task {} of job {}: debloat consumed={} B, in flight={} buffers, throughput={} B/s, buffer size {} B",
                    taskId(), deployment.jobName(), consumedBytes, inFlight, Math.round(debloater.throughput()), size);
        }
        gate.setDesiredBufferSize(size);
    }

    /**
     * Narrows the input decoding to the fields the chain head reads, when it says which (the counter of
     * {@code throughput-16} reads the key of a row whose 100-byte payload it would otherwise copy per record), and
     * reads every input row into one reusable row when the head keeps none ({@link io.weir.api.operator.StreamOperator#retainsInputRows()}).
     */
    @Override
    protected void openHead() {
        if (operators.isEmpty()) {
            return;
        }
        if (!operators.get(0).operator.retainsInputRows()) {
            inputReuse = new Row.Reusable(deployment.inputSerializer().schema());
        }
        int[] read = operators.get(0).operator.inputFieldsRead();
        if (read == null) {
            return;
        }
        KeySelector keys = deployment.headKeySelector();
        int[] needed = keys == null ? read : java.util.stream.IntStream.concat(
                java.util.Arrays.stream(read), java.util.Arrays.stream(keys.positions())).toArray();
        inputSerializer = deployment.inputSerializer().decodingOnly(needed);
    }

    @Override
    protected long runDefaultAction() throws Exception {
        if (gate.hasPriorityEvent()) {
            // an unaligned barrier overtook the queued data: handle it now, even mid-buffer
            InputGate.ChannelEntry p = gate.pollPriorityEvent();
            if (p != null) {
                barrierHandler.processBarrier((CheckpointBarrier) p.entry(), p.channel());
                settleRecordings();
                return 0;
            }
        }
        if (deserializer.hasBuffer()) {
            if (!outputAvailable()) {
                return IDLE_WAIT_NANOS;
            }
            Row row = deserializer.next(inputSerializer, inputReuse);
            barrierHandler.onBytesProcessed(deserializer.lastRecordBytes());
            processRow(row);
            return 0;
        }
        InputGate.ChannelEntry e = gate.pollNext();
        if (e == null) {
            return IDLE_WAIT_NANOS;
        }
        Object entry = e.entry();
        int channel = e.channel();
        if (entry instanceof NetworkBuffer buffer) {
            if (!recordings.isEmpty()) {
                for (InflightRecording r : recordings.values()) {
                    r.onBuffer(channel, buffer.segment(), buffer.size());
                }
            }
            consumedBytes += buffer.size();
            deserializer.setBuffer(buffer, channel);
        } else if (entry instanceof CheckpointBarrier barrier) {
            barrierHandler.processBarrier(barrier, channel);
            settleRecordings();
            if (!gate.isBlocked(channel)) {
                // The upstream subpartition paused itself when it sent this aligned barrier; the
                // handler did not hold the channel back (single input, stale barrier, alignment
                // done), so let it send again. Only this channel: others may be mid-alignment.
                gate.resume(channel);
            }
        } else if (entry instanceof CancelCheckpointMarker marker) {
            barrierHandler.processCancellationBarrier(marker, channel);
            settleRecordings();
        } else if (entry instanceof io.weir.runtime.io.network.Watermark w) {
            valve.inputWatermark(channel, w.timestamp());
        } else if (entry instanceof io.weir.runtime.io.network.WatermarkStatus status) {
            valve.inputStatus(channel, status == io.weir.runtime.io.network.WatermarkStatus.IDLE);
        } else if (entry == EndOfData.INSTANCE) {
            if (!endOfData[channel]) {
                endOfData[channel] = true;
                if (++endOfDataCount == endOfData.length) {
                    finishData();
                }
            }
        } else {
            throw new IllegalStateException("unexpected entry " + entry + " on channel " + channel + " of task " + taskId());
        }
        return 0;
    }

    /**
     * A recording the handler did not start right after an unaligned trigger had nothing in flight
     * (e.g. a single input channel); completed ones are forgotten.
     */
    private void settleRecordings() {
        recordings.values().removeIf(r -> {
            if (!r.isStarted()) {
                r.start(new int[0]);
            }
            return r.isDone();
        });
    }

    @Override
    public java.util.concurrent.CompletableFuture<io.weir.runtime.checkpoint.RecordedInput> inputChannelState(long checkpointId) {
        InflightRecording r = new InflightRecording(checkpointId);
        if (deserializer.hasBuffer()) {
            // rows of a buffer taken before the barrier but processed after the snapshot
            r.addUnconsumed(deserializer.channel(), deserializer.unconsumed());
        }
        recordings.put(checkpointId, r);
        return r.future();
    }

    @Override
    public void startPersistingInflight(long checkpointId, int[] channels) {
        InflightRecording r = recordings.get(checkpointId);
        if (r != null) {
            r.start(channels);
        }
    }

    @Override
    public void stopPersistingInflight(long checkpointId, int channel) {
        InflightRecording r = recordings.get(checkpointId);
        if (r != null) {
            r.stop(channel);
            if (r.isDone()) {
                recordings.remove(checkpointId);
            }
        }
    }

    @Override
    public void requestPriorityBarrier(long checkpointId, int channel) {
        gate.channel(channel).convertToPriority(checkpointId);
    }

    @Override
    public void registerAlignmentTimer(long checkpointId, long delayMs) {
        services.timers().schedule(() -> mailbox.put(new io.weir.runtime.mailbox.Mail("alignment timeout of checkpoint " + checkpointId, () -> {
            barrierHandler.onAlignmentTimeout(checkpointId);
            settleRecordings();
        })), delayMs, java.util.concurrent.TimeUnit.MILLISECONDS);
    }

    @Override
    protected void closeHead() {
        if (debloatTimer != null) {
            debloatTimer.cancel(false);
        }
        java.util.concurrent.CancellationException ended = new java.util.concurrent.CancellationException("task " + taskId() + " ended");
        recordings.values().forEach(r -> r.abort(ended));
        recordings.clear();
        deserializer.release();
        if (barrierHandler != null) {
            barrierHandler.close();
        }
    }

    // BarrierHandlerContext

    @Override
    public int numberOfInputChannels() {
        return gate.numberOfChannels();
    }

    @Override
    public void blockChannel(int channel) {
        gate.block(channel);
    }

    @Override
    public void resumeAllChannels() {
        gate.resumeAll();
    }

    @Override
    public void triggerCheckpointOnBarrier(CheckpointBarrier barrier, BarrierAlignment alignment) {
        performCheckpoint(barrier, alignment);
    }

    @Override
    public void abortCheckpointOnBarrier(long checkpointId, CheckpointFailureReason reason) {
        InflightRecording r = recordings.remove(checkpointId);
        if (r != null) {
            // a CheckpointException tells the checkpoint's async part not to decline again with a counted reason
            r.abort(new io.weir.core.checkpoint.CheckpointException(reason, "(in-flight recording of checkpoint " + checkpointId
                    + " at task " + taskId() + ")", null));
        }
        checkpoints.abortCheckpoint(checkpointId, reason);
    }

    @Override
    public long nanoTime() {
        return System.nanoTime();
    }

    @Override
    public long currentTimeMillis() {
        return System.currentTimeMillis();
    }
}
