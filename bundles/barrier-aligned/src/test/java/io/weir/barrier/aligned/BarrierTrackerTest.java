package io.weir.barrier.aligned;

import static io.weir.core.checkpoint.CheckpointFailureReason.CHECKPOINT_DECLINED_ON_CANCELLATION_BARRIER;
import static io.weir.core.checkpoint.CheckpointFailureReason.CHECKPOINT_SUBSUMED;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.weir.barrier.aligned.RecordingBarrierHandlerContext.Abort;
import io.weir.barrier.aligned.RecordingBarrierHandlerContext.Trigger;
import io.weir.core.barrier.BarrierAlignment;
import io.weir.core.checkpoint.CancelCheckpointMarker;
import io.weir.core.checkpoint.CheckpointAlignment;
import io.weir.core.checkpoint.CheckpointBarrier;
import io.weir.core.checkpoint.CheckpointOptions;
import org.junit.jupiter.api.Test;

class BarrierTrackerTest {
    private static final long MS = 1_000_000L;
    private static final CheckpointOptions AT_LEAST_ONCE = new CheckpointOptions(CheckpointAlignment.AT_LEAST_ONCE, 0, false);

    private RecordingBarrierHandlerContext context;
    private BarrierTracker tracker;

    private void start(int channels) {
        context = new RecordingBarrierHandlerContext(channels);
        tracker = new BarrierTracker(context, "sink (1/1)");
    }

    private CheckpointBarrier barrier(long id, long ageMs) {
        return new CheckpointBarrier(id, context.millis() - ageMs, AT_LEAST_ONCE);
    }

    private CheckpointBarrier barrier(long id) {
        return barrier(id, 0);
    }

    @Test
    void trackerNeverBlocksAndTriggersAtLastBarrier() {
        start(3);
        CheckpointBarrier b = barrier(1, 25);
        tracker.processBarrier(b, 2);
        tracker.onBytesProcessed(64);
        context.advanceNanos(3 * MS);
        tracker.processBarrier(b, 0);
        assertThat(context.calls()).isEmpty();
        assertThat(tracker.isAligning()).isTrue();

        context.advanceNanos(4 * MS);
        tracker.processBarrier(b, 1);
        assertThat(context.calls()).containsExactly(new Trigger(1, new BarrierAlignment(25, 7 * MS, 64)));
        assertThat(tracker.isAligning()).isFalse();
        assertThat(tracker.latestCheckpointId()).isEqualTo(1);
    }

    @Test
    void singleInputTriggersImmediately() {
        start(1);
        tracker.processBarrier(barrier(1, 5), 0);

        assertThat(context.calls()).containsExactly(new Trigger(1, new BarrierAlignment(5, 0, 0)));
    }

    @Test
    void overlappingCheckpointsTriggerInOrderWithTheirOwnMetrics() {
        start(2);
        tracker.processBarrier(barrier(1), 0);
        tracker.onBytesProcessed(10);
        context.advanceNanos(2 * MS);
        tracker.processBarrier(barrier(2), 0);
        tracker.onBytesProcessed(5);
        context.advanceNanos(3 * MS);
        tracker.processBarrier(barrier(1), 1);
        tracker.onBytesProcessed(1);
        context.advanceNanos(4 * MS);
        tracker.processBarrier(barrier(2), 1);

        assertThat(context.calls()).containsExactly(
                new Trigger(1, new BarrierAlignment(0, 5 * MS, 15)),
                new Trigger(2, new BarrierAlignment(0, 7 * MS, 6)));
        assertThat(tracker.isAligning()).isFalse();
        assertThat(tracker.latestCheckpointId()).isEqualTo(2);
    }

    @Test
    void newerCheckpointCompletingAbortsOlderIncompleteOne() {
        start(2);
        tracker.processBarrier(barrier(1), 0);
        tracker.processBarrier(barrier(2), 0);
        tracker.processBarrier(barrier(2), 1);
        tracker.processBarrier(barrier(1), 1); // late: checkpoint 1 was subsumed

        assertThat(context.calls()).containsExactly(
                new Abort(1, CHECKPOINT_SUBSUMED), new Trigger(2, new BarrierAlignment(0, 0, 0)));
        assertThat(tracker.isAligning()).isFalse();
    }

    @Test
    void cancelMarkerAbortsCheckpointInProgressOnce() {
        start(3);
        tracker.processBarrier(barrier(1), 0);
        tracker.processCancellationBarrier(new CancelCheckpointMarker(1), 1);
        tracker.processCancellationBarrier(new CancelCheckpointMarker(1), 2);
        tracker.processBarrier(barrier(1), 2);

        assertThat(context.calls()).containsExactly(new Abort(1, CHECKPOINT_DECLINED_ON_CANCELLATION_BARRIER));
        assertThat(tracker.isAligning()).isFalse();
    }

    @Test
    void cancelMarkerBeforeAnyBarrierMakesLaterBarriersIgnored() {
        start(2);
        tracker.processCancellationBarrier(new CancelCheckpointMarker(4), 0);
        tracker.processBarrier(barrier(4), 1);
        tracker.processBarrier(barrier(3), 1);
        assertThat(context.calls()).containsExactly(new Abort(4, CHECKPOINT_DECLINED_ON_CANCELLATION_BARRIER));
        assertThat(tracker.isAligning()).isFalse();

        context.clearCalls();
        tracker.processBarrier(barrier(5), 0);
        tracker.processBarrier(barrier(5), 1);
        assertThat(context.calls()).containsExactly(new Trigger(5, new BarrierAlignment(0, 0, 0)));
    }

    @Test
    void cancelMarkerOfNewerCheckpointLeavesOlderOneInProgress() {
        start(2);
        tracker.processBarrier(barrier(1), 0);
        tracker.processCancellationBarrier(new CancelCheckpointMarker(2), 0);
        tracker.processBarrier(barrier(1), 1);

        assertThat(context.calls()).containsExactly(
                new Abort(2, CHECKPOINT_DECLINED_ON_CANCELLATION_BARRIER),
                new Trigger(1, new BarrierAlignment(0, 0, 0)));
    }

    @Test
    void tooManyCheckpointsInProgressDropsTheOldest() {
        start(2);
        for (long id = 1; id <= BarrierTracker.MAX_TRACKED_CHECKPOINTS + 1; id++) {
            tracker.processBarrier(barrier(id), 0);
        }

        assertThat(context.calls()).containsExactly(new Abort(1, CHECKPOINT_SUBSUMED));
    }

    @Test
    void closedTrackerRejectsEvents() {
        start(2);
        tracker.processBarrier(barrier(1), 0);
        tracker.close();

        assertThat(context.calls()).isEmpty();
        assertThat(tracker.isAligning()).isFalse();
        assertThatThrownBy(() -> tracker.processBarrier(barrier(1), 1))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("sink (1/1)");
    }
}
