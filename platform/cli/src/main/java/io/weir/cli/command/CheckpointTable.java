package io.weir.cli.command;

import io.weir.core.checkpoint.SubtaskCheckpointMetrics;
import io.weir.core.checkpoint.TaskId;
import io.weir.core.coordination.CompletedCheckpointStats;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;

/**
 * Formats the per-subtask breakdown of one completed checkpoint, like Flink's web UI and
 * PROTOCOL.md §5: one row per subtask with start_delay, alignment, sync, async, end_to_end (all ms)
 * and size (bytes), where end_to_end = the subtask's ack time − the checkpoint's trigger time; then
 * persisted (in-flight bytes an unaligned checkpoint stored), aligned_bytes (bytes processed while
 * aligning) and whether the subtask took the checkpoint unaligned.
 */
public final class CheckpointTable {
    private static final String[] HEADER = {"vertex", "subtask", "start_delay", "alignment", "sync", "async", "end_to_end", "size",
        "persisted", "aligned_bytes", "unaligned"};

    private CheckpointTable() {
    }

    /**
     * @param stats the checkpoint
     * @param vertexOrder vertex ids in the order to print them (the job's topological order); vertices
     *        not listed come after, by name
     * @return the table: a title line, a header and one line per subtask, each ending in a newline
     */
    public static String format(CompletedCheckpointStats stats, List<String> vertexOrder) {
        List<Map.Entry<TaskId, SubtaskCheckpointMetrics>> rows = new ArrayList<>(stats.subtasks().entrySet());
        Comparator<TaskId> byVertex = Comparator.comparingInt(t -> {
            int i = vertexOrder.indexOf(t.vertexId());
            return i < 0 ? Integer.MAX_VALUE : i;
        });
        rows.sort(Map.Entry.comparingByKey(byVertex.thenComparing(TaskId::vertexId).thenComparingInt(TaskId::subtaskIndex)));

        List<String[]> cells = new ArrayList<>();
        cells.add(HEADER);
        for (Map.Entry<TaskId, SubtaskCheckpointMetrics> row : rows) {
            SubtaskCheckpointMetrics m = row.getValue();
            cells.add(new String[] {
                row.getKey().vertexId(),
                String.valueOf(row.getKey().subtaskIndex()),
                String.valueOf(m.startDelayMs()),
                String.valueOf(m.alignmentDurationMs()),
                String.valueOf(m.syncDurationMs()),
                String.valueOf(m.asyncDurationMs()),
                String.valueOf(m.ackTimestamp() - stats.triggerTimestamp()),
                String.valueOf(m.checkpointedSizeBytes()),
                String.valueOf(m.persistedDataBytes()),
                String.valueOf(m.processedDataDuringAlignmentBytes()),
                m.unaligned() ? "yes" : "no"});
        }
        int[] width = new int[HEADER.length];
        for (String[] line : cells) {
            for (int c = 0; c < line.length; c++) {
                width[c] = Math.max(width[c], line[c].length());
            }
        }
        StringBuilder sb = new StringBuilder();
        sb.append("Checkpoint ").append(stats.checkpointId()).append(stats.isFinal() ? " (final)" : "")
                .append(": ").append(stats.checkpointedSizeBytes()).append(" bytes, ")
                .append(stats.endToEndDurationMs()).append(" ms end to end; per subtask (times in ms, size in bytes):\n");
        for (String[] line : cells) {
            for (int c = 0; c < line.length; c++) {
                if (c > 0) {
                    sb.append("  ");
                }
                // text columns left-aligned, numbers right-aligned
                String fmt = c == 0 ? "%-" + width[c] + "s" : "%" + width[c] + "s";
                sb.append(String.format(fmt, line[c]));
            }
            sb.append('\n');
        }
        return sb.toString();
    }
}
