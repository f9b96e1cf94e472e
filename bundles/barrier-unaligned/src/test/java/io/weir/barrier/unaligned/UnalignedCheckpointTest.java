package io.weir.barrier.unaligned;

import static io.weir.core.checkpoint.CheckpointFailureReason.CHECKPOINT_DECLINED_ON_CANCELLATION_BARRIER;
import static io.weir.core.checkpoint.CheckpointFailureReason.CHECKPOINT_SUBSUMED;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.weir.barrier.unaligned.RecordingBarrierHandlerContext.Abort;
import io.weir.barrier.unaligned.RecordingBarrierHandlerContext.StartPersisting;
import io.weir.barrier.unaligned.RecordingBarrierHandlerContext.StopPersisting;
import io.weir.barrier.unaligned.RecordingBarrierHandlerContext.Trigger;
import io.weir.barrier.unaligned.UnalignedBarrierHandler.Phase;
import io.weir.core.barrier.BarrierAlignment;
import io.weir.core.checkpoint.CancelCheckpointMarker;
import io.weir.core.checkpoint.CheckpointAlignment;
import io.weir.core.checkpoint.CheckpointBarrier;
import io.weir.core.checkpoint.CheckpointOptions;
import org.junit.jupiter.api.Test;

/** Checkpoints whose barriers are UNALIGNED from the start (PROTOCOL.md §6). */
class UnalignedCheckpointTest {
    private static final long MS = 1_000_000L;
    private static final CheckpointOptions UNALIGNED = new CheckpointOptions(CheckpointAlignment.UNALIGNED, 0, false);

    private RecordingBarrierHandlerContext context;
    private UnalignedBarrierHandler handler;

    private void start(int channels) {
        context = new RecordingBarrierHandlerContext(channels);
        handler = new UnalignedBarrierHandler(context, "window (3/4)");
    }

    /** An unaligned barrier created {@code ageMs} before the context's current wall-clock time. */
    private CheckpointBarrier barrier(long id, long ageMs) {
        return new CheckpointBarrier(id, context.millis() - ageMs, UNALIGNED);
    }

    private CheckpointBarrier barrier(long id) {
        return barrier(id, 0);
    }

    @Test
    void firstBarrierTriggersAtOnceAndPersistsTheOtherChannels() {
        start(3);
        CheckpointBarrier b = barrier(1, 40);
        handler.onBytesProcessed(500);
        handler.processBarrier(b, 1);

        assertThat(context.calls()).containsExactly(
                new Trigger(b, new BarrierAlignment(40, 0, 0)), new StartPersisting(1, 0, 2));
        assertThat(handler.phase()).isEqualTo(Phase.COLLECTING_UNALIGNED);
        assertThat(handler.isAligning()).isTrue();
        assertThat(handler.latestCheckpointId()).isEqualTo(1);
    }

    @Test
    void laterBarriersStopPersistingTheirChannelsAndCompleteTheCheckpoint() {
        start(3);
        CheckpointBarrier b = barrier(1);
        handler.processBarrier(b, 1);
        context.clearCalls();

        context.advanceNanos(5 * MS);
        handler.processBarrier(b, 2);
        assertThat(context.calls()).containsExactly(new StopPersisting(1, 2));
        assertThat(handler.phase()).isEqualTo(Phase.COLLECTING_UNALIGNED);

        handler.processBarrier(b, 0);
        assertThat(context.calls()).containsExactly(new StopPersisting(1, 2), new StopPersisting(1, 0));
        assertThat(handler.phase()).isEqualTo(Phase.WAITING_FOR_FIRST_BARRIER);
        assertThat(handler.isAligning()).isFalse();

        context.clearCalls();
        CheckpointBarrier next = barrier(2);
        handler.processBarrier(next, 0);
        assertThat(context.calls()).containsExactly(
                new Trigger(next, new BarrierAlignment(0, 0, 0)), new StartPersisting(2, 1, 2));
    }

    @Test
    void singleInputTriggersAndCompletesWithNothingToPersist() {
        start(1);
        CheckpointBarrier b = barrier(1, 12);
        handler.processBarrier(b, 0);

        assertThat(context.calls()).containsExactly(
                new Trigger(b, new BarrierAlignment(12, 0, 0)), new StartPersisting(1));
        assertThat(handler.phase()).isEqualTo(Phase.WAITING_FOR_FIRST_BARRIER);
        assertThat(handler.isAligning()).isFalse();
    }

    @Test
    void barrierStampedInTheFutureHasZeroStartDelay() {
        start(1);
        CheckpointBarrier b = barrier(1, -30);
        handler.processBarrier(b, 0);

        assertThat(context.calls()).first().isEqualTo(new Trigger(b, new BarrierAlignment(0, 0, 0)));
    }

    @Test
    void newerBarrierWhileRecordingAbortsOlderAsSubsumedAndStartsNewer() {
        start(3);
        handler.processBarrier(barrier(1), 0);
        handler.processBarrier(barrier(1), 1);
        context.clearCalls();

        CheckpointBarrier newer = barrier(2, 7);
        handler.processBarrier(newer, 2);
        assertThat(context.calls()).containsExactly(
                new Abort(1, CHECKPOINT_SUBSUMED),
                new Trigger(newer, new BarrierAlignment(7, 0, 0)), new StartPersisting(2, 0, 1));
        assertThat(handler.phase()).isEqualTo(Phase.COLLECTING_UNALIGNED);

        context.clearCalls();
        handler.processBarrier(barrier(1), 2); // late barrier of the subsumed checkpoint
        handler.processBarrier(barrier(2), 0);
        handler.processBarrier(barrier(2), 1);
        assertThat(context.calls()).containsExactly(new StopPersisting(2, 0), new StopPersisting(2, 1));
        assertThat(handler.phase()).isEqualTo(Phase.WAITING_FOR_FIRST_BARRIER);
        assertThat(handler.latestCheckpointId()).isEqualTo(2);
    }

    @Test
    void olderBarrierWhileRecordingIsIgnored() {
        start(2);
        handler.processBarrier(barrier(5), 0);
        context.clearCalls();
        handler.processBarrier(barrier(4), 1);

        assertThat(context.calls()).isEmpty();
        assertThat(handler.phase()).isEqualTo(Phase.COLLECTING_UNALIGNED);
        assertThat(handler.latestCheckpointId()).isEqualTo(5);
    }

    @Test
    void staleBarrierAfterCompletionIsIgnored() {
        start(2);
        handler.processBarrier(barrier(2), 0);
        handler.processBarrier(barrier(2), 1);
        context.clearCalls();

        handler.processBarrier(barrier(1), 0);
        handler.processBarrier(barrier(2), 1);

        assertThat(context.calls()).isEmpty();
        assertThat(handler.phase()).isEqualTo(Phase.WAITING_FOR_FIRST_BARRIER);
    }

    @Test
    void cancelMarkerWhileRecordingAbortsWithoutResumingAndLaterBarriersAreIgnored() {
        start(3);
        handler.processBarrier(barrier(1), 0);
        context.clearCalls();
        handler.processCancellationBarrier(new CancelCheckpointMarker(1), 1);
        handler.processCancellationBarrier(new CancelCheckpointMarker(1), 2); // duplicate
        handler.processBarrier(barrier(1), 2); // late barrier of the aborted checkpoint

        assertThat(context.calls()).containsExactly(new Abort(1, CHECKPOINT_DECLINED_ON_CANCELLATION_BARRIER));
        assertThat(handler.phase()).isEqualTo(Phase.WAITING_FOR_FIRST_BARRIER);
    }

    @Test
    void cancelMarkerOfNewerCheckpointAbortsTheRecordedOneAsSubsumed() {
        start(2);
        handler.processBarrier(barrier(1), 0);
        context.clearCalls();
        handler.processCancellationBarrier(new CancelCheckpointMarker(2), 1);
        handler.processBarrier(barrier(2), 0);

        assertThat(context.calls()).containsExactly(
                new Abort(1, CHECKPOINT_SUBSUMED), new Abort(2, CHECKPOINT_DECLINED_ON_CANCELLATION_BARRIER));
        assertThat(handler.phase()).isEqualTo(Phase.WAITING_FOR_FIRST_BARRIER);
    }

    @Test
    void processedBytesWhileRecordingDoNotLeakIntoTheNextCheckpoint() {
        start(2);
        handler.processBarrier(barrier(1), 0);
        handler.onBytesProcessed(300);
        handler.processBarrier(barrier(1), 1);
        handler.onBytesProcessed(40);
        context.clearCalls();

        CheckpointBarrier next = barrier(2);
        handler.processBarrier(next, 1);
        assertThat(context.calls()).first().isEqualTo(new Trigger(next, new BarrierAlignment(0, 0, 0)));
    }

    @Test
    void closeWhileRecordingMakesNoCallsAndRejectsLaterEvents() {
        start(2);
        handler.processBarrier(barrier(1), 0);
        context.clearCalls();
        handler.close();
        handler.close();

        assertThat(context.calls()).isEmpty();
        assertThat(handler.phase()).isEqualTo(Phase.CLOSED);
        assertThat(handler.isAligning()).isFalse();
        assertThatThrownBy(() -> handler.processBarrier(barrier(1), 1))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("window (3/4)").hasMessageContaining("CLOSED");
    }

    @Test
    void duplicateBarrierFromOneChannelIsRejected() {
        start(3);
        handler.processBarrier(barrier(1), 0);
        assertThatThrownBy(() -> handler.processBarrier(barrier(1), 0))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("window (3/4)").hasMessageContaining("channel 0").hasMessageContaining("checkpoint 1");
    }

    @Test
    void atLeastOnceBarrierIsRejected() {
        start(2);
        CheckpointBarrier atLeastOnce = new CheckpointBarrier(1, context.millis(),
                new CheckpointOptions(CheckpointAlignment.AT_LEAST_ONCE, 0, false));
        assertThatThrownBy(() -> handler.processBarrier(atLeastOnce, 0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("window (3/4)").hasMessageContaining("AT_LEAST_ONCE");
        assertThat(context.calls()).isEmpty();
    }

    @Test
    void barrierOnUnknownChannelIsRejected() {
        start(2);
        assertThatThrownBy(() -> handler.processBarrier(barrier(1), 2))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("channel 2 out of range");
    }

    @Test
    void illegalTransitionNamesBothStates() {
        assertThatThrownBy(() -> UnalignedBarrierHandler.checkTransition("window (3/4)",
                        Phase.COLLECTING_UNALIGNED, Phase.COLLECTING_ALIGNED))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("window (3/4)").hasMessageContaining("COLLECTING_UNALIGNED -> COLLECTING_ALIGNED");
        assertThat(Phase.CLOSED.canTransitionTo(Phase.WAITING_FOR_FIRST_BARRIER)).isFalse();
        assertThat(Phase.WAITING_FOR_FIRST_BARRIER.canTransitionTo(Phase.WAITING_FOR_FIRST_BARRIER)).isFalse();
        assertThat(Phase.COLLECTING_ALIGNED.canTransitionTo(Phase.COLLECTING_UNALIGNED)).isTrue();
    }
}
