package io.weir.rest.resource;

import io.weir.core.checkpoint.SubtaskCheckpointMetrics;
import io.weir.core.checkpoint.TaskId;
import io.weir.core.coordination.CompletedCheckpointStats;
import io.weir.core.job.JobVertex;
import io.weir.rest.node.CheckpointHistory;
import io.weir.rest.node.JobNotFoundException;
import io.weir.rest.node.NodeJob;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.ToLongFunction;

/**
 * Builds {@code GET /jobs/:id/checkpoints/details/:cid} and {@code .../subtasks/:vertex} from a job's
 * {@link CheckpointHistory}: per vertex and per subtask, as Flink's web UI shows a checkpoint. A
 * subtask's end-to-end duration is its ack time − the checkpoint's trigger time, as {@code weir run}'s
 * table prints it. Stateless.
 */
final class CheckpointDetailViews {
    private CheckpointDetailViews() {
    }

    /**
     * @param checkpointId the path parameter {@code :cid}
     * @return it as a checkpoint id
     * @throws ApiErrors.BadRequestException (400) if it is not a non-negative decimal number
     */
    static long parseCheckpointId(String checkpointId) {
        try {
            long id = Long.parseLong(checkpointId);
            if (id >= 0) {
                return id;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw new ApiErrors.BadRequestException("checkpoint id '" + checkpointId
                + "' must be a non-negative number, e.g. the 'id' of an entry of GET /jobs/:id/checkpoints");
    }

    /**
     * @param job the job
     * @param checkpointId the checkpoint
     * @return its details
     * @throws JobNotFoundException (404) if the checkpoint is not in the job's history
     */
    static Views.CheckpointDetails details(NodeJob job, long checkpointId) {
        CheckpointHistory.Entry entry = find(job, checkpointId);
        if (entry instanceof CheckpointHistory.Failure f) {
            return new Views.CheckpointDetails(f.checkpointId(), "FAILED", false, false, "CHECKPOINT", -1, -1, 0, 0, -1, 0, 0,
                    0, 0, 0, null, f.failureTimestamp(), f.failureMessage(), Map.of());
        }
        CompletedCheckpointStats c = ((CheckpointHistory.Completed) entry).stats();
        Views.CheckpointView totals = JobViews.checkpoint(c);
        Map<String, Views.TaskCheckpointView> tasks = new LinkedHashMap<>();
        for (Map.Entry<String, List<SubtaskCheckpointMetrics>> v : byVertex(job, c).entrySet()) {
            tasks.put(v.getKey(), task(c, v.getValue()));
        }
        String type = c.isSavepoint() ? "SAVEPOINT" : totals.unaligned() ? "UNALIGNED_CHECKPOINT" : "CHECKPOINT";
        return new Views.CheckpointDetails(c.checkpointId(), "COMPLETED", c.isSavepoint(), c.isFinal(), type,
                c.triggerTimestamp(), totals.latestAckTimestamp(), totals.stateSize(), c.checkpointedSizeBytes(),
                c.endToEndDurationMs(), totals.processedData(), totals.processedData(), c.persistedDataBytes(),
                totals.numSubtasks(), totals.numAcknowledgedSubtasks(), c.externalPath(), null, null, tasks);
    }

    /**
     * @param job the job
     * @param checkpointId the checkpoint
     * @param vertexId a vertex of the job
     * @return the vertex's subtasks in that checkpoint, by index, with their summary
     * @throws JobNotFoundException (404) if the checkpoint is not in the history, failed (no subtask data), or has
     *         no subtasks of that vertex
     */
    static Views.TaskCheckpointDetails subtasks(NodeJob job, long checkpointId, String vertexId) {
        CheckpointHistory.Entry entry = find(job, checkpointId);
        if (!(entry instanceof CheckpointHistory.Completed completed)) {
            throw new JobNotFoundException("checkpoint " + checkpointId + " of job " + job.name() + " (" + job.id()
                    + ") failed; the node keeps no per-subtask data of failed checkpoints");
        }
        CompletedCheckpointStats c = completed.stats();
        List<Map.Entry<TaskId, SubtaskCheckpointMetrics>> rows = c.subtasks().entrySet().stream()
                .filter(e -> e.getKey().vertexId().equals(vertexId))
                .sorted(Map.Entry.comparingByKey(Comparator.comparingInt(TaskId::subtaskIndex)))
                .toList();
        if (rows.isEmpty()) {
            throw new JobNotFoundException("checkpoint " + checkpointId + " of job " + job.name() + " has no subtasks of vertex '"
                    + vertexId + "'; its vertices are " + byVertex(job, c).keySet());
        }
        List<SubtaskCheckpointMetrics> metrics = rows.stream().map(Map.Entry::getValue).toList();
        Views.TaskCheckpointView t = task(c, metrics);
        List<Views.SubtaskCheckpointView> subtasks = new ArrayList<>();
        for (Map.Entry<TaskId, SubtaskCheckpointMetrics> row : rows) {
            SubtaskCheckpointMetrics m = row.getValue();
            subtasks.add(new Views.SubtaskCheckpointView(row.getKey().subtaskIndex(), "completed", m.ackTimestamp(),
                    m.ackTimestamp() - c.triggerTimestamp(), m.stateSizeBytes(), m.checkpointedSizeBytes(),
                    new Views.CheckpointDuration(m.syncDurationMs(), m.asyncDurationMs()),
                    new Views.Alignment(m.processedDataDuringAlignmentBytes(), m.processedDataDuringAlignmentBytes(),
                            m.persistedDataBytes(), m.alignmentDurationMs()),
                    m.startDelayMs(), m.unaligned(), false));
        }
        Views.SubtasksSummary summary = new Views.SubtasksSummary(
                summary(metrics, SubtaskCheckpointMetrics::stateSizeBytes),
                summary(metrics, SubtaskCheckpointMetrics::checkpointedSizeBytes),
                summary(metrics, m -> m.ackTimestamp() - c.triggerTimestamp()),
                new Views.DurationSummary(summary(metrics, SubtaskCheckpointMetrics::syncDurationMs),
                        summary(metrics, SubtaskCheckpointMetrics::asyncDurationMs)),
                new Views.AlignmentSummary(summary(metrics, SubtaskCheckpointMetrics::processedDataDuringAlignmentBytes),
                        summary(metrics, SubtaskCheckpointMetrics::processedDataDuringAlignmentBytes),
                        summary(metrics, SubtaskCheckpointMetrics::persistedDataBytes),
                        summary(metrics, SubtaskCheckpointMetrics::alignmentDurationMs)),
                summary(metrics, SubtaskCheckpointMetrics::startDelayMs));
        return new Views.TaskCheckpointDetails(t.id(), t.status(), t.latestAckTimestamp(), t.checkpointedSize(), t.stateSize(),
                t.endToEndDuration(), t.alignmentBuffered(), t.processedData(), t.persistedData(), t.numSubtasks(),
                t.numAcknowledgedSubtasks(), summary, subtasks);
    }

    private static CheckpointHistory.Entry find(NodeJob job, long checkpointId) {
        CheckpointHistory.Entry entry = job.checkpoints().snapshot().find(checkpointId);
        if (entry == null) {
            throw new JobNotFoundException("no checkpoint " + checkpointId + " in the history of job " + job.name() + " ("
                    + job.id() + "); the node keeps the newest " + CheckpointHistory.DEFAULT_CAPACITY
                    + " checkpoints per job, GET /jobs/:id/checkpoints lists them");
        }
        return entry;
    }

    /** The checkpoint's subtask metrics by vertex: the job's vertices in topological order, then any others by name. */
    private static Map<String, List<SubtaskCheckpointMetrics>> byVertex(NodeJob job, CompletedCheckpointStats c) {
        List<String> order = job.graph().vertices().stream().map(JobVertex::id).toList();
        List<Map.Entry<TaskId, SubtaskCheckpointMetrics>> rows = new ArrayList<>(c.subtasks().entrySet());
        Comparator<TaskId> byOrder = Comparator.comparingInt(t -> {
            int i = order.indexOf(t.vertexId());
            return i < 0 ? Integer.MAX_VALUE : i;
        });
        rows.sort(Map.Entry.comparingByKey(byOrder.thenComparing(TaskId::vertexId).thenComparingInt(TaskId::subtaskIndex)));
        Map<String, List<SubtaskCheckpointMetrics>> result = new LinkedHashMap<>();
        for (Map.Entry<TaskId, SubtaskCheckpointMetrics> row : rows) {
            result.computeIfAbsent(row.getKey().vertexId(), k -> new ArrayList<>()).add(row.getValue());
        }
        return result;
    }

    private static Views.TaskCheckpointView task(CompletedCheckpointStats c, List<SubtaskCheckpointMetrics> m) {
        long latestAck = max(m, SubtaskCheckpointMetrics::ackTimestamp);
        long size = sum(m, SubtaskCheckpointMetrics::checkpointedSizeBytes);
        long processed = sum(m, SubtaskCheckpointMetrics::processedDataDuringAlignmentBytes);
        return new Views.TaskCheckpointView(c.checkpointId(), "COMPLETED", latestAck, size,
                sum(m, SubtaskCheckpointMetrics::stateSizeBytes),
                latestAck - c.triggerTimestamp(), processed, processed, sum(m, SubtaskCheckpointMetrics::persistedDataBytes),
                m.size(), m.size());
    }

    private static Views.StatsSummary summary(List<SubtaskCheckpointMetrics> m, ToLongFunction<SubtaskCheckpointMetrics> f) {
        long min = m.stream().mapToLong(f).min().orElse(0);
        long max = m.stream().mapToLong(f).max().orElse(0);
        long avg = m.isEmpty() ? 0 : sum(m, f) / m.size();
        return new Views.StatsSummary(min, max, avg);
    }

    private static long max(List<SubtaskCheckpointMetrics> m, ToLongFunction<SubtaskCheckpointMetrics> f) {
        return m.stream().mapToLong(f).max().orElse(0);
    }

    private static long sum(List<SubtaskCheckpointMetrics> m, ToLongFunction<SubtaskCheckpointMetrics> f) {
        return m.stream().mapToLong(f).sum();
    }
}
