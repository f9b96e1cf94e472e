package io.weir.barrier.unaligned;

import io.weir.core.barrier.BarrierAlignment;
import io.weir.core.barrier.BarrierHandlerContext;
import io.weir.core.checkpoint.CheckpointBarrier;
import io.weir.core.checkpoint.CheckpointFailureReason;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Collectors;

/** A {@link BarrierHandlerContext} that records every call in order, with settable clocks. Test thread only. */
final class RecordingBarrierHandlerContext implements BarrierHandlerContext {
    /** One recorded call. */
    sealed interface Call permits Block, ResumeAll, Trigger, Abort, StartPersisting, StopPersisting, PriorityBarrier,
            Timer {
    }

    record Block(int channel) implements Call {
    }

    record ResumeAll() implements Call {
    }

    /** The whole barrier is recorded so tests see whether it was triggered aligned or unaligned. */
    record Trigger(CheckpointBarrier barrier, BarrierAlignment alignment) implements Call {
    }

    record Abort(long checkpointId, CheckpointFailureReason reason) implements Call {
    }

    record StartPersisting(long checkpointId, List<Integer> channels) implements Call {
        StartPersisting(long checkpointId, Integer... channels) {
            this(checkpointId, List.of(channels));
        }
    }

    record StopPersisting(long checkpointId, int channel) implements Call {
    }

    record PriorityBarrier(long checkpointId, int channel) implements Call {
    }

    record Timer(long checkpointId, long delayMs) implements Call {
    }

    private final int channels;
    private final List<Call> calls = new ArrayList<>();
    private long nanoTime = 1_000_000_000L;
    private long currentTimeMillis = 1_700_000_000_000L;

    RecordingBarrierHandlerContext(int channels) {
        this.channels = channels;
    }

    List<Call> calls() {
        return List.copyOf(calls);
    }

    void clearCalls() {
        calls.clear();
    }

    long millis() {
        return currentTimeMillis;
    }

    /** Advances both clocks by {@code nanos} (ms clock by whole ms). */
    void advanceNanos(long nanos) {
        nanoTime += nanos;
        currentTimeMillis += nanos / 1_000_000L;
    }

    @Override
    public int numberOfInputChannels() {
        return channels;
    }

    @Override
    public void blockChannel(int channel) {
        calls.add(new Block(channel));
    }

    @Override
    public void resumeAllChannels() {
        calls.add(new ResumeAll());
    }

    @Override
    public void triggerCheckpointOnBarrier(CheckpointBarrier barrier, BarrierAlignment alignment) {
        calls.add(new Trigger(barrier, alignment));
    }

    @Override
    public void abortCheckpointOnBarrier(long checkpointId, CheckpointFailureReason reason) {
        calls.add(new Abort(checkpointId, reason));
    }

    @Override
    public void startPersistingInflight(long checkpointId, int[] channels) {
        calls.add(new StartPersisting(checkpointId, Arrays.stream(channels).boxed().collect(Collectors.toList())));
    }

    @Override
    public void stopPersistingInflight(long checkpointId, int channel) {
        calls.add(new StopPersisting(checkpointId, channel));
    }

    @Override
    public void requestPriorityBarrier(long checkpointId, int channel) {
        calls.add(new PriorityBarrier(checkpointId, channel));
    }

    @Override
    public void registerAlignmentTimer(long checkpointId, long delayMs) {
        calls.add(new Timer(checkpointId, delayMs));
    }

    @Override
    public long nanoTime() {
        return nanoTime;
    }

    @Override
    public long currentTimeMillis() {
        return currentTimeMillis;
    }
}
