package io.weir.cli.command;

import io.weir.core.checkpoint.SubtaskCheckpointMetrics;
import io.weir.core.checkpoint.TaskId;
import io.weir.core.coordination.CompletedCheckpointStats;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

class CheckpointTableTest {
    @Test
    void rowsFollowVertexOrderThenSubtaskAndEndToEndIsAckMinusTrigger() {
        CompletedCheckpointStats stats = new CompletedCheckpointStats(7, 10_000, 3201, 5714, 0, true, Map.of(
                new TaskId("counter", 1, 0), new SubtaskCheckpointMetrics(13_201, 3201, 127, 1, 7, 1000, 52_000, 4096, true),
                new TaskId("source", 0, 0), new SubtaskCheckpointMetrics(10_015, 0, 0, 0, 5, 64, 0, 0, false),
                new TaskId("counter", 0, 0), new SubtaskCheckpointMetrics(10_044, 40, 0, 1, 2, 4650, 0, 0, false)));

        String table = CheckpointTable.format(stats, List.of("source", "counter"));

        assertThat(table.lines()).containsExactly(
                "Checkpoint 7 (final): 5714 bytes, 3201 ms end to end; per subtask (times in ms, size in bytes):",
                "vertex   subtask  start_delay  alignment  sync  async  end_to_end  size  persisted  aligned_bytes  unaligned",
                "source         0            0          0     0      5          15    64          0              0         no",
                "counter        0           40          0     1      2          44  4650          0              0         no",
                "counter        1         3201        127     1      7        3201  1000      52000           4096        yes");
    }
}
