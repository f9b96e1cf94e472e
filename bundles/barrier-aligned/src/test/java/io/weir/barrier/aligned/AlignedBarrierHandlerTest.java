package io.weir.barrier.aligned;

import static io.weir.core.checkpoint.CheckpointFailureReason.CHECKPOINT_DECLINED_ON_CANCELLATION_BARRIER;
import static io.weir.core.checkpoint.CheckpointFailureReason.CHECKPOINT_SUBSUMED;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.weir.barrier.aligned.RecordingBarrierHandlerContext.Abort;
import io.weir.barrier.aligned.RecordingBarrierHandlerContext.Block;
import io.weir.barrier.aligned.RecordingBarrierHandlerContext.ResumeAll;
import io.weir.barrier.aligned.RecordingBarrierHandlerContext.Trigger;
import io.weir.core.barrier.BarrierAlignment;
import io.weir.core.checkpoint.CancelCheckpointMarker;
import io.weir.core.checkpoint.CheckpointBarrier;
import io.weir.core.checkpoint.CheckpointOptions;
import org.junit.jupiter.api.Test;

class AlignedBarrierHandlerTest {
    private static final long MS = 1_000_000L;

    private RecordingBarrierHandlerContext context;
    private AlignedBarrierHandler handler;

    private void start(int channels) {
        context = new RecordingBarrierHandlerContext(channels);
        handler = new AlignedBarrierHandler(context, "map (2/4)");
    }

    /** A barrier created {@code ageMs} before the context's current wall-clock time. */
    private CheckpointBarrier barrier(long id, long ageMs) {
        return new CheckpointBarrier(id, context.millis() - ageMs, CheckpointOptions.aligned());
    }

    private CheckpointBarrier barrier(long id) {
        return barrier(id, 0);
    }

    @Test
    void barrierFromLastChannelCompletesAlignment() {
        start(3);
        CheckpointBarrier b = barrier(1, 40);
        handler.processBarrier(b, 1);
        assertThat(handler.isAligning()).isTrue();
        context.advanceNanos(5 * MS);
        handler.processBarrier(b, 0);
        context.advanceNanos(7 * MS);
        handler.processBarrier(b, 2);

        assertThat(context.calls()).containsExactly(
                new Block(1), new Block(0), new ResumeAll(),
                new Trigger(1, new BarrierAlignment(40, 12 * MS, 0)));
        assertThat(handler.isAligning()).isFalse();
        assertThat(handler.phase()).isEqualTo(AlignedBarrierHandler.Phase.WAITING_FOR_FIRST_BARRIER);
        assertThat(handler.latestCheckpointId()).isEqualTo(1);
    }

    @Test
    void singleInputDoesNotWait() {
        start(1);
        handler.processBarrier(barrier(1, 15), 0);

        assertThat(context.calls()).containsExactly(new Trigger(1, new BarrierAlignment(15, 0, 0)));
        assertThat(handler.isAligning()).isFalse();
    }

    @Test
    void barrierStampedInTheFutureHasZeroStartDelay() {
        start(1);
        handler.processBarrier(barrier(1, -30), 0);

        assertThat(context.calls()).containsExactly(new Trigger(1, new BarrierAlignment(0, 0, 0)));
    }

    @Test
    void newerBarrierWhileAligningAbortsOlderAndAlignsNewer() {
        start(3);
        handler.processBarrier(barrier(1), 0);
        handler.processBarrier(barrier(2), 1);
        assertThat(context.calls()).containsExactly(
                new Block(0), new ResumeAll(), new Abort(1, CHECKPOINT_SUBSUMED), new Block(1));
        assertThat(handler.isAligning()).isTrue();

        context.clearCalls();
        handler.processBarrier(barrier(1), 2); // late barrier of the subsumed checkpoint
        handler.processBarrier(barrier(2), 0);
        context.advanceNanos(3 * MS);
        handler.processBarrier(barrier(2), 2);
        assertThat(context.calls()).containsExactly(
                new Block(0), new ResumeAll(), new Trigger(2, new BarrierAlignment(0, 3 * MS, 0)));
        assertThat(handler.latestCheckpointId()).isEqualTo(2);
    }

    @Test
    void staleBarrierIsIgnored() {
        start(2);
        handler.processBarrier(barrier(2), 0);
        handler.processBarrier(barrier(2), 1);
        context.clearCalls();

        handler.processBarrier(barrier(1), 0);
        handler.processBarrier(barrier(2), 1);

        assertThat(context.calls()).isEmpty();
        assertThat(handler.isAligning()).isFalse();
        assertThat(handler.latestCheckpointId()).isEqualTo(2);
    }

    @Test
    void olderBarrierWhileAligningIsIgnored() {
        start(2);
        handler.processBarrier(barrier(5), 0);
        handler.processBarrier(barrier(4), 1);

        assertThat(context.calls()).containsExactly(new Block(0));
        assertThat(handler.isAligning()).isTrue();
        assertThat(handler.latestCheckpointId()).isEqualTo(5);
    }

    @Test
    void cancelMarkerDuringAlignmentAbortsAndUnblocks() {
        start(3);
        handler.processBarrier(barrier(1), 0);
        handler.processCancellationBarrier(new CancelCheckpointMarker(1), 1);
        handler.processCancellationBarrier(new CancelCheckpointMarker(1), 2); // duplicate
        handler.processBarrier(barrier(1), 2); // late barrier of the aborted checkpoint

        assertThat(context.calls()).containsExactly(
                new Block(0), new ResumeAll(), new Abort(1, CHECKPOINT_DECLINED_ON_CANCELLATION_BARRIER));
        assertThat(handler.isAligning()).isFalse();
    }

    @Test
    void cancelMarkerBeforeAnyBarrierMakesLaterBarriersIgnored() {
        start(2);
        handler.processCancellationBarrier(new CancelCheckpointMarker(3), 0);
        handler.processCancellationBarrier(new CancelCheckpointMarker(3), 1);
        handler.processBarrier(barrier(3), 1);
        assertThat(context.calls()).containsExactly(new Abort(3, CHECKPOINT_DECLINED_ON_CANCELLATION_BARRIER));
        assertThat(handler.isAligning()).isFalse();
        assertThat(handler.latestCheckpointId()).isEqualTo(3);

        context.clearCalls();
        handler.processBarrier(barrier(4), 0);
        assertThat(context.calls()).containsExactly(new Block(0));
        assertThat(handler.latestCheckpointId()).isEqualTo(4);
    }

    @Test
    void cancelMarkerOfNewerCheckpointAbortsOlderAlignmentAsSubsumed() {
        start(2);
        handler.processBarrier(barrier(1), 0);
        handler.processCancellationBarrier(new CancelCheckpointMarker(2), 1);

        assertThat(context.calls()).containsExactly(
                new Block(0), new ResumeAll(), new Abort(1, CHECKPOINT_SUBSUMED),
                new Abort(2, CHECKPOINT_DECLINED_ON_CANCELLATION_BARRIER));
        assertThat(handler.isAligning()).isFalse();
    }

    @Test
    void cancelMarkerOfOlderCheckpointDoesNotDisturbAlignment() {
        start(2);
        handler.processBarrier(barrier(5), 0);
        handler.processCancellationBarrier(new CancelCheckpointMarker(4), 1);

        assertThat(context.calls()).containsExactly(new Block(0));
        assertThat(handler.isAligning()).isTrue();
    }

    @Test
    void processedBytesAreCountedOnlyWhileAligning() {
        start(2);
        handler.onBytesProcessed(100);
        handler.processBarrier(barrier(1), 0);
        handler.onBytesProcessed(30);
        handler.onBytesProcessed(12);
        handler.processBarrier(barrier(1), 1);
        handler.onBytesProcessed(500);
        handler.processBarrier(barrier(2), 1);
        handler.onBytesProcessed(8);
        handler.processBarrier(barrier(2), 0);

        assertThat(context.calls()).filteredOn(Trigger.class::isInstance).containsExactly(
                new Trigger(1, new BarrierAlignment(0, 0, 42)),
                new Trigger(2, new BarrierAlignment(0, 0, 8)));
    }

    @Test
    void negativeProcessedBytesAreRejected() {
        start(2);
        assertThatThrownBy(() -> handler.onBytesProcessed(-1))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("map (2/4)");
    }

    @Test
    void closeWhileAligningResumesWithoutAbortingAndRejectsLaterEvents() {
        start(2);
        handler.processBarrier(barrier(1), 0);
        handler.close();
        handler.close();

        assertThat(context.calls()).containsExactly(new Block(0), new ResumeAll());
        assertThat(handler.phase()).isEqualTo(AlignedBarrierHandler.Phase.CLOSED);
        assertThat(handler.isAligning()).isFalse();
        assertThatThrownBy(() -> handler.processBarrier(barrier(1), 1))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("map (2/4)").hasMessageContaining("CLOSED");
    }

    @Test
    void illegalTransitionNamesBothStates() {
        assertThatThrownBy(() -> AlignedBarrierHandler.checkTransition("map (2/4)",
                        AlignedBarrierHandler.Phase.CLOSED, AlignedBarrierHandler.Phase.COLLECTING_BARRIERS))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("CLOSED -> COLLECTING_BARRIERS");
        assertThat(AlignedBarrierHandler.Phase.WAITING_FOR_FIRST_BARRIER
                .canTransitionTo(AlignedBarrierHandler.Phase.WAITING_FOR_FIRST_BARRIER)).isFalse();
    }

    @Test
    void duplicateBarrierFromOneChannelIsRejected() {
        start(3);
        handler.processBarrier(barrier(1), 0);
        assertThatThrownBy(() -> handler.processBarrier(barrier(1), 0))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("channel 0").hasMessageContaining("checkpoint 1");
    }

    @Test
    void barrierOnUnknownChannelIsRejected() {
        start(2);
        assertThatThrownBy(() -> handler.processBarrier(barrier(1), 2))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("channel 2 out of range");
    }
}
