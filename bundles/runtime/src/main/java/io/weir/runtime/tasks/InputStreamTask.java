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
    /** Task thread only. */
    private CheckpointBarrierHandler barrierHandler;
    /** Task thread only: channels that delivered end-of-data. */
    private final boolean[] endOfData;
    private int endOfDataCount;

    /** @param deployment a chain whose head is an operator or sink with an input gate */
    public InputStreamTask(TaskDeployment deployment, TaskServices services) {
        super(deployment, services);
        this.gate = deployment.inputGate();
        gate.setDataAvailableListener(mailbox::wakeUp);
        this.endOfData = new boolean[gate.numberOfChannels()];
    }

    @Override
    public boolean isSource() {
        return false;
    }

    @Override
    protected SnapshotParticipant headParticipant() {
        barrierHandler = services.barrierHandlers().create(this, deployment.config(), toString());
        return null;
    }

    @Override
    protected long runDefaultAction() throws Exception {
        if (deserializer.hasBuffer()) {
            if (!outputAvailable()) {
                return IDLE_WAIT_NANOS;
            }
            Row row = deserializer.next(deployment.inputSerializer());
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
            deserializer.setBuffer(buffer, channel);
        } else if (entry instanceof CheckpointBarrier barrier) {
            barrierHandler.processBarrier(barrier, channel);
            if (!gate.isBlocked(channel)) {
                // The upstream subpartition paused itself when it sent this aligned barrier; the
                // handler did not hold the channel back (single input, stale barrier, alignment
                // done), so let it send again. Only this channel: others may be mid-alignment.
                gate.resume(channel);
            }
        } else if (entry instanceof CancelCheckpointMarker marker) {
            barrierHandler.processCancellationBarrier(marker, channel);
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

    @Override
    protected void closeHead() {
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
