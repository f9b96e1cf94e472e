package io.weir.coordinator;

import io.weir.core.checkpoint.CheckpointFailureReason;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class CheckpointFailureManagerTest {
    private final List<Throwable> failures = new ArrayList<>();

    @Test
    void notCountedReasonsNeverFailTheJob() {
        CheckpointFailureManager m = new CheckpointFailureManager("job", 0, failures::add);
        for (CheckpointFailureReason r : CheckpointFailureReason.values()) {
            if (!r.isCounted()) {
                m.onCheckpointFailure(1, r, null);
            }
        }
        assertThat(failures).isEmpty();
        assertThat(m.continuousFailures()).isZero();
    }

    @Test
    void exceedingTheThresholdFailsTheJobOnceAndStartsCountingAfresh() {
        CheckpointFailureManager m = new CheckpointFailureManager("job", 1, failures::add);
        m.onCheckpointFailure(1, CheckpointFailureReason.CHECKPOINT_EXPIRED, null);
        assertThat(failures).isEmpty();
        m.onCheckpointFailure(2, CheckpointFailureReason.CHECKPOINT_EXPIRED, null);
        assertThat(failures).hasSize(1);
        assertThat(failures.get(0)).hasMessageContaining("Exceeded checkpoint tolerable failure threshold")
                .hasMessageContaining("checkpoint 2");
        m.onCheckpointFailure(3, CheckpointFailureReason.CHECKPOINT_EXPIRED, null);
        assertThat(failures).hasSize(1);
    }

    @Test
    void failureOfCheckpointOlderThanLastCompletedIsNotCounted() {
        CheckpointFailureManager m = new CheckpointFailureManager("job", 0, failures::add);
        m.onCheckpointSuccess(5);
        m.onCheckpointFailure(4, CheckpointFailureReason.CHECKPOINT_EXPIRED, null);
        assertThat(failures).isEmpty();
        m.onTriggerFailure(CheckpointFailureReason.IO_EXCEPTION, null);
        assertThat(failures).hasSize(1);
    }
}
