package io.weir.barrier.unaligned;

import static io.weir.core.checkpoint.CheckpointFailureReason.CHECKPOINT_DECLINED_ON_CANCELLATION_BARRIER;
import static io.weir.core.checkpoint.CheckpointFailureReason.CHECKPOINT_SUBSUMED;
import static org.assertj.core.api.Assertions.assertThat;

import io.weir.barrier.unaligned.RecordingBarrierHandlerContext.Abort;
import io.weir.barrier.unaligned.RecordingBarrierHandlerContext.Block;
import io.weir.barrier.unaligned.RecordingBarrierHandlerContext.PriorityBarrier;
import io.weir.barrier.unaligned.RecordingBarrierHandlerContext.ResumeAll;
import io.weir.barrier.unaligned.RecordingBarrierHandlerContext.StartPersisting;
import io.weir.barrier.unaligned.RecordingBarrierHandlerContext.StopPersisting;
import io.weir.barrier.unaligned.RecordingBarrierHandlerContext.Timer;
import io.weir.barrier.unaligned.RecordingBarrierHandlerContext.Trigger;
import io.weir.barrier.unaligned.UnalignedBarrierHandler.Phase;
import io.weir.core.barrier.BarrierAlignment;
import io.weir.core.checkpoint.CancelCheckpointMarker;
import io.weir.core.checkpoint.CheckpointAlignment;
import io.weir.core.checkpoint.CheckpointBarrier;
import io.weir.core.checkpoint.CheckpointOptions;
import org.junit.jupiter.api.Test;

/** Checkpoints that start aligned and switch to unaligned after the aligned-checkpoint timeout (PROTOCOL.md §6). */
class AlignedWithTimeoutTest {
    private static final long MS = 1_000_000L;

    private RecordingBarrierHandlerContext context;
    private UnalignedBarrierHandler handler;

    private void start(int channels) {
        context = new RecordingBarrierHandlerContext(channels);
        handler = new UnalignedBarrierHandler(context, "join (1/2)");
    }

    /** An aligned barrier with a {@code timeoutMs} timeout, created {@code ageMs} before the context's wall clock. */
    private CheckpointBarrier barrier(long id, long timeoutMs, long ageMs) {
        return new CheckpointBarrier(id, context.millis() - ageMs,
                new CheckpointOptions(CheckpointAlignment.ALIGNED_WITH_TIMEOUT, timeoutMs, false));
    }

    @Test
    void alignmentCompletingBeforeTheTimerTriggersAlignedAndTheTimerIsIgnored() {
        start(2);
        CheckpointBarrier b = barrier(1, 100, 30);
        handler.processBarrier(b, 0);
        context.advanceNanos(5 * MS);
        handler.processBarrier(b, 1);
        context.advanceNanos(70 * MS);
        handler.onAlignmentTimeout(1);

        assertThat(context.calls()).containsExactly(
                new Block(0), new Timer(1, 70), new ResumeAll(), new Trigger(b, new BarrierAlignment(30, 5 * MS, 0)));
        assertThat(handler.phase()).isEqualTo(Phase.WAITING_FOR_FIRST_BARRIER);
    }

    @Test
    void timerFiringWhileAligningSwitchesToUnalignedForTheMissingChannels() {
        start(4);
        CheckpointBarrier b = barrier(1, 50, 10);
        handler.processBarrier(b, 2);
        context.advanceNanos(15 * MS);
        handler.processBarrier(b, 0);
        handler.onBytesProcessed(64);
        context.advanceNanos(25 * MS);
        handler.onAlignmentTimeout(1);

        assertThat(context.calls()).containsExactly(
                new Block(2), new Timer(1, 40), new Block(0),
                new ResumeAll(), new Trigger(b.asUnaligned(), new BarrierAlignment(10, 40 * MS, 64)),
                new StartPersisting(1, 1, 3), new PriorityBarrier(1, 1), new PriorityBarrier(1, 3));
        assertThat(handler.phase()).isEqualTo(Phase.COLLECTING_UNALIGNED);
        assertThat(handler.isAligning()).isTrue();

        context.clearCalls();
        handler.processBarrier(b.asUnaligned(), 3);
        handler.processBarrier(b, 1); // already on its way before the priority request: same effect
        assertThat(context.calls()).containsExactly(new StopPersisting(1, 3), new StopPersisting(1, 1));
        assertThat(handler.phase()).isEqualTo(Phase.WAITING_FOR_FIRST_BARRIER);
    }

    @Test
    void barrierOlderThanTheTimeoutRegistersAnImmediateTimer() {
        start(2);
        handler.processBarrier(barrier(1, 100, 250), 1);

        assertThat(context.calls()).containsExactly(new Block(1), new Timer(1, 0));
    }

    @Test
    void zeroTimeoutAlignsWithoutATimer() {
        start(2);
        CheckpointBarrier b = barrier(1, 0, 0);
        handler.processBarrier(b, 0);
        handler.onAlignmentTimeout(1);
        handler.processBarrier(b, 1);

        assertThat(context.calls()).containsExactly(
                new Block(0), new ResumeAll(), new Trigger(b, new BarrierAlignment(0, 0, 0)));
    }

    @Test
    void singleInputTriggersAlignedWithoutATimer() {
        start(1);
        CheckpointBarrier b = barrier(1, 100, 20);
        handler.processBarrier(b, 0);

        assertThat(context.calls()).containsExactly(new Trigger(b, new BarrierAlignment(20, 0, 0)));
    }

    @Test
    void timerOfAnotherCheckpointDoesNotSwitch() {
        start(2);
        CheckpointBarrier b = barrier(2, 100, 0);
        handler.processBarrier(b, 0);
        handler.onAlignmentTimeout(1);
        handler.onAlignmentTimeout(3);

        assertThat(context.calls()).containsExactly(new Block(0), new Timer(2, 100));
        assertThat(handler.phase()).isEqualTo(Phase.COLLECTING_ALIGNED);
    }

    @Test
    void unalignedBarrierWhileAligningSwitchesAndCountsAsDelivered() {
        start(3);
        CheckpointBarrier b = barrier(1, 1000, 0);
        handler.processBarrier(b, 0);
        context.advanceNanos(4 * MS);
        handler.processBarrier(b.asUnaligned(), 1); // its producer's output-queue timer fired
        context.advanceNanos(1000 * MS);
        handler.onAlignmentTimeout(1); // already switched: ignored

        assertThat(context.calls()).containsExactly(
                new Block(0), new Timer(1, 1000),
                new ResumeAll(), new Trigger(b.asUnaligned(), new BarrierAlignment(0, 4 * MS, 0)),
                new StartPersisting(1, 2), new PriorityBarrier(1, 2));
        assertThat(handler.phase()).isEqualTo(Phase.COLLECTING_UNALIGNED);

        context.clearCalls();
        handler.processBarrier(b.asUnaligned(), 2);
        assertThat(context.calls()).containsExactly(new StopPersisting(1, 2));
        assertThat(handler.phase()).isEqualTo(Phase.WAITING_FOR_FIRST_BARRIER);
    }

    @Test
    void unalignedBarrierFromTheLastMissingChannelTriggersUnalignedAndCompletes() {
        start(2);
        CheckpointBarrier b = barrier(1, 1000, 0);
        handler.processBarrier(b, 0);
        context.advanceNanos(2 * MS);
        handler.processBarrier(b.asUnaligned(), 1);

        assertThat(context.calls()).containsExactly(
                new Block(0), new Timer(1, 1000),
                new ResumeAll(), new Trigger(b.asUnaligned(), new BarrierAlignment(0, 2 * MS, 0)),
                new StartPersisting(1));
        assertThat(handler.phase()).isEqualTo(Phase.WAITING_FOR_FIRST_BARRIER);
    }

    @Test
    void newerBarrierAfterTheSwitchAbortsWithoutResuming() {
        start(2);
        handler.processBarrier(barrier(1, 10, 0), 0);
        handler.onAlignmentTimeout(1);
        context.clearCalls();

        CheckpointBarrier newer = barrier(2, 10, 0);
        handler.processBarrier(newer, 1);
        assertThat(context.calls()).containsExactly(
                new Abort(1, CHECKPOINT_SUBSUMED), new Block(1), new Timer(2, 10));
        assertThat(handler.phase()).isEqualTo(Phase.COLLECTING_ALIGNED);
    }

    @Test
    void cancelMarkerWhileAligningAbortsAndTheTimerIsIgnoredLater() {
        start(2);
        handler.processBarrier(barrier(1, 10, 0), 0);
        handler.processCancellationBarrier(new CancelCheckpointMarker(1), 1);
        handler.onAlignmentTimeout(1);

        assertThat(context.calls()).containsExactly(
                new Block(0), new Timer(1, 10), new ResumeAll(), new Abort(1, CHECKPOINT_DECLINED_ON_CANCELLATION_BARRIER));
        assertThat(handler.phase()).isEqualTo(Phase.WAITING_FOR_FIRST_BARRIER);
    }

    @Test
    void newerUnalignedBarrierWhileAligningAbortsAndTriggersTheNewerAtOnce() {
        start(3);
        handler.processBarrier(barrier(1, 1000, 0), 0);
        context.clearCalls();

        CheckpointBarrier newer = barrier(2, 1000, 0).asUnaligned();
        handler.processBarrier(newer, 1);
        assertThat(context.calls()).containsExactly(
                new ResumeAll(), new Abort(1, CHECKPOINT_SUBSUMED),
                new Trigger(newer, new BarrierAlignment(0, 0, 0)), new StartPersisting(2, 0, 2));
        assertThat(handler.phase()).isEqualTo(Phase.COLLECTING_UNALIGNED);
    }

    @Test
    void processedBytesAreCountedOnlyWhileACheckpointIsInProgress() {
        start(2);
        handler.onBytesProcessed(100); // before: not counted
        handler.processBarrier(barrier(1, 10, 0), 0);
        handler.onBytesProcessed(30);
        handler.onBytesProcessed(12);
        handler.onAlignmentTimeout(1);
        handler.onBytesProcessed(7); // while recording: after the trigger
        handler.processBarrier(barrier(1, 10, 0).asUnaligned(), 1);
        handler.onBytesProcessed(500); // between checkpoints: not counted
        handler.processBarrier(barrier(2, 10, 0), 1);
        handler.onBytesProcessed(8);
        handler.processBarrier(barrier(2, 10, 0), 0);

        assertThat(context.calls()).filteredOn(Trigger.class::isInstance).extracting(c -> ((Trigger) c).alignment())
                .containsExactly(new BarrierAlignment(0, 0, 42), new BarrierAlignment(0, 0, 8));
    }

    @Test
    void closeWhileAligningResumesAndIgnoresALaterTimer() {
        start(2);
        handler.processBarrier(barrier(1, 10, 0), 0);
        handler.close();
        handler.onAlignmentTimeout(1);

        assertThat(context.calls()).containsExactly(new Block(0), new Timer(1, 10), new ResumeAll());
        assertThat(handler.phase()).isEqualTo(Phase.CLOSED);
    }
}
