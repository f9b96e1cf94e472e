package io.weir.coordinator;

import io.weir.core.checkpoint.CheckpointAlignment;
import io.weir.core.checkpoint.CheckpointOptions;
import io.weir.core.config.Configuration;
import io.weir.core.coordination.CheckpointTriggerKind;
import org.junit.jupiter.api.Test;

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
}
