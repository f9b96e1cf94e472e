package io.weir.rest.resource;

import io.weir.core.checkpoint.SubtaskCheckpointMetrics;
import io.weir.core.coordination.CompletedCheckpointStats;
import io.weir.core.engine.JobResult;
import io.weir.core.job.JobVertex;
import io.weir.rest.node.CheckpointHistory;
import io.weir.rest.node.NodeJob;

import java.util.Collection;
import java.util.List;
import java.util.function.ToLongFunction;

/** Turns the node's jobs into the JSON views of {@link Views}. Stateless. */
final class JobViews {
    private JobViews() {
    }

    static Views.JobOverview overview(NodeJob job) {
        return new Views.JobOverview(job.id(), job.name(), job.status().name(), job.startTime(), job.endTime(),
                job.duration(), checkpoint(job.checkpoints().snapshot().latest()));
    }

    static Views.JobDetails details(NodeJob job, long now) {
        JobResult result = job.result();
        java.util.Map<String, Long> written = job.recordsWritten();
        List<Views.Vertex> vertices = job.graph().vertices().stream()
                .map(v -> new Views.Vertex(v.id(), v.id(), v.type(), v.kind().name().toLowerCase(java.util.Locale.ROOT), v.parallelism(),
                        new Views.VertexMetrics(written.getOrDefault(v.id(), 0L))))
                .toList();
        return new Views.JobDetails(job.id(), job.name(), job.status().name(), job.startTime(), job.endTime(),
                job.duration(), now, result == null ? 0 : result.restarts(),
                result == null || result.failure() == null ? null : String.valueOf(result.failure()), vertices);
    }

    static Views.Checkpoints checkpoints(NodeJob job) {
        CheckpointHistory.Snapshot s = job.checkpoints().snapshot();
        Views.CheckpointCounts counts = new Views.CheckpointCounts(s.restored(), s.completed() + s.failed(), 0,
                s.completed(), s.failed());
        CheckpointHistory.Failure f = s.lastFailure();
        CheckpointHistory.Restore r = s.lastRestore();
        Views.LatestCheckpoints latest = new Views.LatestCheckpoints(checkpoint(s.latest()), null,
                f == null ? null : new Views.FailedCheckpointView(f.checkpointId(), "FAILED", f.failureTimestamp(),
                        f.message() == null ? f.reason() : f.reason() + ": " + f.message()),
                r == null ? null : new Views.RestoredCheckpointView(r.checkpointId(), r.restoreTimestamp(), false, r.externalPath()));
        return new Views.Checkpoints(counts, latest, s.history().stream().map(JobViews::checkpoint).toList());
    }

    /** @return the view of a completed checkpoint, or null for null */
    static Views.CheckpointView checkpoint(CompletedCheckpointStats c) {
        if (c == null) {
            return null;
        }
        Collection<SubtaskCheckpointMetrics> m = c.subtasks().values();
        return new Views.CheckpointView(c.checkpointId(), "COMPLETED", false, c.isFinal(), c.triggerTimestamp(),
                max(m, SubtaskCheckpointMetrics::ackTimestamp), c.checkpointedSizeBytes(), c.checkpointedSizeBytes(),
                c.endToEndDurationMs(), sum(m, SubtaskCheckpointMetrics::processedDataDuringAlignmentBytes),
                c.persistedDataBytes(), m.size(), m.size(),
                max(m, SubtaskCheckpointMetrics::startDelayMs), max(m, SubtaskCheckpointMetrics::alignmentDurationMs),
                max(m, SubtaskCheckpointMetrics::syncDurationMs), max(m, SubtaskCheckpointMetrics::asyncDurationMs),
                m.stream().anyMatch(SubtaskCheckpointMetrics::unaligned));
    }

    private static long max(Collection<SubtaskCheckpointMetrics> m, ToLongFunction<SubtaskCheckpointMetrics> f) {
        return m.stream().mapToLong(f).max().orElse(0);
    }

    private static long sum(Collection<SubtaskCheckpointMetrics> m, ToLongFunction<SubtaskCheckpointMetrics> f) {
        return m.stream().mapToLong(f).sum();
    }

    static String kind(JobVertex v) {
        return v.kind().name().toLowerCase(java.util.Locale.ROOT);
    }
}
