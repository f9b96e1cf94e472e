package io.weir.core.barrier;

import static org.assertj.core.api.Assertions.assertThat;

import io.weir.core.checkpoint.CheckpointBarrier;
import io.weir.core.checkpoint.CheckpointOptions;
import org.junit.jupiter.api.Test;

class StaleCheckpointFilterTest {
    @Test
    void idsUpToTheLastFinishedOrBelowTheOneInProgressAreStale() {
        StaleCheckpointFilter ids = new StaleCheckpointFilter();
        ids.markFinished(3);
        ids.markFinished(2); // never goes back
        CheckpointBarrier barrier = new CheckpointBarrier(6, 0, CheckpointOptions.aligned());
        PendingBarriers inProgress = new PendingBarriers("t", barrier, AlignmentMeasurement.start(barrier, 0, 0, 0));

        assertThat(ids.lastFinishedId()).isEqualTo(3);
        assertThat(ids.isStale(3, null)).isTrue();
        assertThat(ids.isStale(4, null)).isFalse();
        assertThat(ids.isStale(5, inProgress)).isTrue();
        assertThat(ids.isStale(6, inProgress)).isFalse();
        assertThat(ids.isStale(7, inProgress)).isFalse();
    }

    @Test
    void latestSeenIdIsTheHighestObserved() {
        StaleCheckpointFilter ids = new StaleCheckpointFilter();
        assertThat(ids.latestSeenId()).isZero();
        ids.observe(5);
        ids.observe(2);
        assertThat(ids.latestSeenId()).isEqualTo(5);
    }
}
