package io.weir.core.barrier;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.weir.core.checkpoint.CheckpointBarrier;
import io.weir.core.checkpoint.CheckpointOptions;
import org.junit.jupiter.api.Test;

class PendingBarriersTest {
    private static final CheckpointBarrier BARRIER = new CheckpointBarrier(4, 1_000, CheckpointOptions.aligned());

    @Test
    void completesWhenEveryChannelDeliveredAndReportsTheMissingOnes() {
        InputChannelSet channels = new InputChannelSet("t", 3);
        PendingBarriers pending = new PendingBarriers("t", BARRIER, AlignmentMeasurement.start(BARRIER, 0, 1_000, 0));
        pending.markDelivered(1);

        assertThat(pending.isComplete(channels)).isFalse();
        assertThat(pending.missingChannels(channels)).containsExactly(0, 2);

        pending.markDelivered(0);
        assertThat(pending.missingChannels(channels)).containsExactly(2);
        assertThat(pending.isComplete(channels)).isFalse();

        pending.markDelivered(2);
        assertThat(pending.missingChannels(channels)).isEmpty();
        assertThat(pending.isComplete(channels)).isTrue();
    }

    @Test
    void secondDeliveryOnAChannelIsRejectedNamingTaskChannelAndCheckpoint() {
        PendingBarriers pending = new PendingBarriers("map (1/2)", BARRIER, AlignmentMeasurement.start(BARRIER, 0, 1_000, 0));
        pending.markDelivered(1);

        assertThatThrownBy(() -> pending.markDelivered(1)).isInstanceOf(IllegalStateException.class)
                .hasMessage("task map (1/2): channel 1 delivered the barrier of checkpoint 4 twice");
    }

    @Test
    void alignmentMeasuresStartDelayDurationAndBytesSinceTheFirstBarrier() {
        PendingBarriers pending = new PendingBarriers("t", BARRIER, AlignmentMeasurement.start(BARRIER, 500, 1_030, 100));

        assertThat(pending.alignment(2_500, 164)).isEqualTo(new BarrierAlignment(30, 2_000, 64));
        assertThat(AlignmentMeasurement.start(BARRIER, 500, 900, 0).startDelayMs()).as("clock skew").isZero();
    }

    @Test
    void blockedFlagFollowsBlockAndResume() {
        PendingBarriers pending = new PendingBarriers("t", BARRIER, AlignmentMeasurement.start(BARRIER, 0, 1_000, 0));
        assertThat(pending.hasBlockedChannels()).isFalse();
        pending.markBlocked();
        assertThat(pending.hasBlockedChannels()).isTrue();
        pending.markResumed();
        assertThat(pending.hasBlockedChannels()).isFalse();
    }
}
