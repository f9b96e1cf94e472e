package io.weir.coordinator;

import io.weir.core.checkpoint.CheckpointAlignment;
import io.weir.core.checkpoint.CheckpointOptions;
import io.weir.core.config.Configuration;
import io.weir.core.coordination.CheckpointTriggerKind;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class CheckpointCoordinatorConfigTest {

    private static CheckpointOptions options(Map<String, Object> raw) {
        return CheckpointCoordinatorConfig.from(new Configuration(raw)).options();
    }

    @Test
    void alignmentFollowsModeUnalignedAndAlignedTimeout() {
        assertThat(options(Map.of()).alignment()).isEqualTo(CheckpointAlignment.ALIGNED);
        assertThat(options(Map.of("execution.checkpointing.mode", "at_least_once", "execution.checkpointing.unaligned.enabled", true))
                .alignment()).isEqualTo(CheckpointAlignment.AT_LEAST_ONCE);
        assertThat(options(Map.of("execution.checkpointing.unaligned.enabled", true)).alignment())
                .isEqualTo(CheckpointAlignment.UNALIGNED);
        CheckpointOptions withTimeout = options(Map.of("execution.checkpointing.unaligned.enabled", true,
                "execution.checkpointing.aligned-checkpoint-timeout", "2 s"));
        assertThat(withTimeout).isEqualTo(new CheckpointOptions(CheckpointAlignment.ALIGNED_WITH_TIMEOUT, 2_000, false));
    }

    @Test
    void finalKindGetsFinalOptions() {
        CheckpointCoordinatorConfig c = CheckpointCoordinatorConfig.from(Configuration.empty());
        assertThat(c.optionsFor(CheckpointTriggerKind.FINAL).isFinal()).isTrue();
        assertThat(c.optionsFor(CheckpointTriggerKind.MANUAL).isFinal()).isFalse();
        assertThat(c.isPeriodic()).isFalse();
        assertThat(c.timeoutMs()).isEqualTo(600_000);
    }

    @Test
    void outOfRangeOptionIsRejectedNamingItsKey() {
        assertThatThrownBy(() -> CheckpointCoordinatorConfig.from(new Configuration(
                Map.of("execution.checkpointing.max-concurrent-checkpoints", 0))))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("execution.checkpointing.max-concurrent-checkpoints");
    }

    @Test
    void concurrentUnalignedCheckpointsAreRejectedNamingBothOptions() {
        for (Map<String, Object> unaligned : List.<Map<String, Object>>of(Map.of("execution.checkpointing.unaligned.enabled", true),
                Map.of("execution.checkpointing.aligned-checkpoint-timeout", "1 s"))) {
            Map<String, Object> raw = new java.util.HashMap<>(unaligned);
            raw.put("execution.checkpointing.max-concurrent-checkpoints", 2);
            assertThatThrownBy(() -> CheckpointCoordinatorConfig.from(new Configuration(raw)))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("execution.checkpointing.max-concurrent-checkpoints")
                    .hasMessageContaining("execution.checkpointing.unaligned.enabled")
                    .hasMessageContaining("set execution.checkpointing.max-concurrent-checkpoints to 1");
        }
        assertThat(CheckpointCoordinatorConfig.from(new Configuration(Map.of("execution.checkpointing.max-concurrent-checkpoints", 2)))
                .maxConcurrent()).as("aligned checkpoints may overlap").isEqualTo(2);
    }
}
