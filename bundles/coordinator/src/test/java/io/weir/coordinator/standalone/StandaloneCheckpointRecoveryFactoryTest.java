package io.weir.coordinator.standalone;

import io.weir.core.checkpoint.CheckpointMetadata;
import io.weir.core.checkpoint.CompletedCheckpoint;
import io.weir.core.ha.CheckpointIDCounter;
import io.weir.core.ha.CompletedCheckpointStore;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class StandaloneCheckpointRecoveryFactoryTest {
    private final StandaloneCheckpointRecoveryFactory factory = new StandaloneCheckpointRecoveryFactory();

    private static CompletedCheckpoint checkpoint(long id) {
        return new CompletedCheckpoint(id, id * 10, id * 10 + 1, "mem://chk-" + id,
                new CheckpointMetadata(id, "job", id * 10, false, Map.of()));
    }

    @Test
    void counterStartsAtOneAndCanBeMovedForward() throws Exception {
        CheckpointIDCounter counter = factory.createCheckpointIDCounter("job");
        assertThat(counter.getAndIncrement()).isEqualTo(1);
        assertThat(counter.getAndIncrement()).isEqualTo(2);
        counter.setCount(42);
        assertThat(counter.get()).isEqualTo(42);
        assertThat(counter.getAndIncrement()).isEqualTo(42);
        assertThatThrownBy(() -> counter.setCount(0)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void storeKeepsNumRetainedAndHandsOverSubsumedOnes() throws Exception {
        CompletedCheckpointStore store = factory.createCompletedCheckpointStore("job", 2);
        List<Long> subsumed = new ArrayList<>();
        for (long id = 1; id <= 4; id++) {
            store.addCheckpointAndSubsumeOldest(checkpoint(id), cp -> subsumed.add(cp.checkpointId()));
        }
        assertThat(store.getAllCheckpoints()).extracting(CompletedCheckpoint::checkpointId).containsExactly(3L, 4L);
        assertThat(store.getLatestCheckpoint()).map(CompletedCheckpoint::checkpointId).contains(4L);
        assertThat(subsumed).containsExactly(1L, 2L);
        assertThat(store.getMaxNumberOfRetainedCheckpoints()).isEqualTo(2);
    }

    @Test
    void storeRejectsCheckpointNotNewerThanLatest() throws Exception {
        CompletedCheckpointStore store = factory.createCompletedCheckpointStore("job", 1);
        store.addCheckpointAndSubsumeOldest(checkpoint(5), cp -> { });
        assertThatThrownBy(() -> store.addCheckpointAndSubsumeOldest(checkpoint(5), cp -> { }))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("checkpoint 5");
        assertThatThrownBy(() -> factory.createCompletedCheckpointStore("job", 0)).isInstanceOf(IllegalArgumentException.class);
    }
}
