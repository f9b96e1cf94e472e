package io.weir.barrier.unaligned;

import static io.weir.core.checkpoint.CheckpointFailureReason.CHECKPOINT_DECLINED_ON_CANCELLATION_BARRIER;
import static io.weir.core.checkpoint.CheckpointFailureReason.CHECKPOINT_SUBSUMED;
import static org.assertj.core.api.Assertions.assertThat;

import io.weir.barrier.unaligned.RecordingBarrierHandlerContext.Abort;
import io.weir.barrier.unaligned.RecordingBarrierHandlerContext.Block;
import io.weir.barrier.unaligned.RecordingBarrierHandlerContext.ResumeAll;
import io.weir.barrier.unaligned.RecordingBarrierHandlerContext.Trigger;
import io.weir.barrier.unaligned.UnalignedBarrierHandler.Phase;
import io.weir.core.barrier.BarrierAlignment;
import io.weir.core.checkpoint.CancelCheckpointMarker;
import io.weir.core.checkpoint.CheckpointBarrier;
import io.weir.core.checkpoint.CheckpointOptions;
import org.junit.jupiter.api.Test;

/** Plain ALIGNED barriers at the unaligned handler behave exactly as at AlignedBarrierHandler (PROTOCOL.md §4). */
class AlignedBarriersTest {
    private static final long MS = 1_000_000L;

    private RecordingBarrierHandlerContext context;
    private UnalignedBarrierHandler handler;

    private void start(int channels) {
        context = new RecordingBarrierHandlerContext(channels);
        handler = new UnalignedBarrierHandler(context, "map (2/4)");
    }

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
        assertThat(handler.phase()).isEqualTo(Phase.COLLECTING_ALIGNED);
        context.advanceNanos(5 * MS);
        handler.processBarrier(b, 0);
        handler.onAlignmentTimeout(1); // no timer for plain aligned: ignored
        context.advanceNanos(7 * MS);
        handler.processBarrier(b, 2);

        assertThat(context.calls()).containsExactly(
                new Block(1), new Block(0), new ResumeAll(), new Trigger(b, new BarrierAlignment(40, 12 * MS, 0)));
        assertThat(handler.phase()).isEqualTo(Phase.WAITING_FOR_FIRST_BARRIER);
        assertThat(handler.latestCheckpointId()).isEqualTo(1);
    }

    @Test
    void singleInputDoesNotWait() {
        start(1);
        CheckpointBarrier b = barrier(1, 15);
        handler.processBarrier(b, 0);

        assertThat(context.calls()).containsExactly(new Trigger(b, new BarrierAlignment(15, 0, 0)));
        assertThat(handler.isAligning()).isFalse();
    }

    @Test
    void newerBarrierWhileAligningAbortsOlderAndAlignsNewer() {
        start(3);
        CheckpointBarrier newer = barrier(2);
        handler.processBarrier(barrier(1), 0);
        handler.processBarrier(newer, 1);
        assertThat(context.calls()).containsExactly(
                new Block(0), new ResumeAll(), new Abort(1, CHECKPOINT_SUBSUMED), new Block(1));

        context.clearCalls();
        handler.processBarrier(barrier(1), 2); // late barrier of the subsumed checkpoint
        handler.processBarrier(newer, 0);
        context.advanceNanos(3 * MS);
        handler.processBarrier(newer, 2);
        assertThat(context.calls()).containsExactly(
                new Block(0), new ResumeAll(), new Trigger(newer, new BarrierAlignment(0, 3 * MS, 0)));
    }

    @Test
    void cancelMarkerDuringAlignmentAbortsAndUnblocks() {
        start(3);
        handler.processBarrier(barrier(1), 0);
        handler.processCancellationBarrier(new CancelCheckpointMarker(1), 1);
        handler.processCancellationBarrier(new CancelCheckpointMarker(1), 2);
        handler.processBarrier(barrier(1), 2);

        assertThat(context.calls()).containsExactly(
                new Block(0), new ResumeAll(), new Abort(1, CHECKPOINT_DECLINED_ON_CANCELLATION_BARRIER));
        assertThat(handler.isAligning()).isFalse();
    }

    @Test
    void cancelMarkerBeforeAnyBarrierMakesLaterBarriersIgnored() {
        start(2);
        handler.processCancellationBarrier(new CancelCheckpointMarker(3), 0);
        handler.processBarrier(barrier(3), 1);
        assertThat(context.calls()).containsExactly(new Abort(3, CHECKPOINT_DECLINED_ON_CANCELLATION_BARRIER));

        context.clearCalls();
        handler.processBarrier(barrier(4), 0);
        assertThat(context.calls()).containsExactly(new Block(0));
        assertThat(handler.latestCheckpointId()).isEqualTo(4);
    }

    @Test
    void cancelMarkerOfOlderCheckpointDoesNotDisturbAlignment() {
        start(2);
        handler.processBarrier(barrier(5), 0);
        handler.processCancellationBarrier(new CancelCheckpointMarker(4), 1);

        assertThat(context.calls()).containsExactly(new Block(0));
        assertThat(handler.phase()).isEqualTo(Phase.COLLECTING_ALIGNED);
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
                new Trigger(barrier(1), new BarrierAlignment(0, 0, 42)),
                new Trigger(barrier(2), new BarrierAlignment(0, 0, 8)));
    }

    @Test
    void closeWhileAligningResumesWithoutAborting() {
        start(2);
        handler.processBarrier(barrier(1), 0);
        handler.close();

        assertThat(context.calls()).containsExactly(new Block(0), new ResumeAll());
        assertThat(handler.phase()).isEqualTo(Phase.CLOSED);
    }
}
