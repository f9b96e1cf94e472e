package io.weir.coordinator;

import io.weir.core.checkpoint.CheckpointOptions;
import io.weir.core.coordination.CheckpointTriggerKind;
import org.junit.jupiter.api.Test;

import java.util.concurrent.CompletableFuture;

import static org.assertj.core.api.Assertions.assertThat;

class PendingCheckpointsTest {
    private final FakeJob job = new FakeJob(0);
    private final PendingCheckpoints checkpoints = new PendingCheckpoints(2);

    private PendingCheckpoint add(long id) throws Exception {
        PendingCheckpoint p = new PendingCheckpoint(id, 1_000, new CheckpointRequest(CheckpointTriggerKind.MANUAL, 1_000,
                new CompletableFuture<>()), CheckpointPlan.calculate("flight-delays", job.gateways()), CheckpointOptions.aligned());
        checkpoints.add(p);
        return p;
    }

    @Test
    void finishedIdsAreRememberedByOutcomeUntilEvicted() throws Exception {
        for (long id = 1; id <= 4; id++) {
            add(id);
        }
        checkpoints.removeAborted(1);
        checkpoints.removeCompleted(2);
        assertThat(checkpoints.statusOf(1)).isEqualTo(PendingCheckpoints.Status.RECENTLY_ABORTED);
        assertThat(checkpoints.statusOf(2)).isEqualTo(PendingCheckpoints.Status.RECENTLY_COMPLETED);
        assertThat(checkpoints.statusOf(3)).isEqualTo(PendingCheckpoints.Status.PENDING);
        assertThat(checkpoints.statusOf(9)).isEqualTo(PendingCheckpoints.Status.UNKNOWN);
        checkpoints.removeAborted(3);
        checkpoints.removeAborted(4);
        assertThat(checkpoints.statusOf(1)).isEqualTo(PendingCheckpoints.Status.UNKNOWN);
        assertThat(checkpoints.isEmpty()).isTrue();
    }

    @Test
    void olderThanListsLowerIdsOldestFirstAndIsACopy() throws Exception {
        PendingCheckpoint one = add(1);
        PendingCheckpoint two = add(2);
        add(3);
        var older = checkpoints.olderThan(3);
        assertThat(older).containsExactly(one, two);
        checkpoints.removeAborted(1);
        assertThat(older).containsExactly(one, two);
        assertThat(checkpoints.all()).extracting(PendingCheckpoint::checkpointId).containsExactly(2L, 3L);
        assertThat(checkpoints.size()).isEqualTo(2);
    }
}
