package io.weir.rest.resource;

import io.weir.core.checkpoint.SubtaskCheckpointMetrics;
import io.weir.core.config.CheckpointingOptions;
import io.weir.core.config.Configuration;
import io.weir.core.config.ExecutionOptions;
import io.weir.core.coordination.CompletedCheckpointStats;
import io.weir.core.engine.JobResult;
import io.weir.core.job.JobVertex;
import io.weir.rest.node.CheckpointHistory;
import io.weir.rest.node.ExceptionHistory;
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
                        job.graph().inputsOf(v.id()).stream().map(io.weir.core.job.JobEdge::source).toList(),
                        new Views.VertexMetrics(written.getOrDefault(v.id(), 0L))))
                .toList();
        return new Views.JobDetails(job.id(), job.name(), job.status().name(), job.startTime(), job.endTime(),
                job.duration(), now, result == null ? 0 : result.restarts(),
                result == null || result.failure() == null ? null : String.valueOf(result.failure()), vertices,
                job.boundVertices().stream().map(v -> new Views.PluginVersionView(v.id(), v.type(), v.plugin().origin().bundle(),
                        v.plugin().origin().version().toString(), v.versions().toString())).toList(),
                job.upgrades().upgrades().stream().map(u -> new Views.UpgradeView(u.time(), u.from(), u.to(), u.savepoint(),
                        u.downtimeMs(), u.outcome().name(), u.message())).toList());
    }

    static Views.Checkpoints checkpoints(NodeJob job) {
        CheckpointHistory.Snapshot s = job.checkpoints().snapshot();
        Views.CheckpointCounts counts = new Views.CheckpointCounts(s.restored(), s.completed() + s.failed(), 0,
                s.completed(), s.failed());
        CheckpointHistory.Failure f = s.lastFailure();
        CheckpointHistory.Restore r = s.lastRestore();
        Views.LatestCheckpoints latest = new Views.LatestCheckpoints(checkpoint(s.latest()), checkpoint(s.latestSavepoint()),
                f == null ? null : failed(f),
                r == null ? null : new Views.RestoredCheckpointView(r.checkpointId(), r.restoreTimestamp(), r.isSavepoint(), r.externalPath()));
        List<Object> history = s.history().stream()
                .map(e -> e instanceof CheckpointHistory.Completed c ? (Object) checkpoint(c.stats()) : failed((CheckpointHistory.Failure) e))
                .toList();
        return new Views.Checkpoints(counts, latest, history);
    }

    static Views.FailedCheckpointView failed(CheckpointHistory.Failure f) {
        return new Views.FailedCheckpointView(f.checkpointId(), "FAILED", false, f.failureTimestamp(), f.failureMessage());
    }

    /** @return {@code GET /jobs/:id/checkpoints/config} of the job's configuration */
    static Views.CheckpointConfig config(NodeJob job) {
        Configuration c = job.graph().config();
        Long interval = c.get(CheckpointingOptions.INTERVAL);
        return new Views.CheckpointConfig(c.get(CheckpointingOptions.MODE).name().toLowerCase(java.util.Locale.ROOT),
                interval == null ? -1 : interval, c.get(CheckpointingOptions.TIMEOUT), c.get(CheckpointingOptions.MIN_PAUSE),
                c.get(CheckpointingOptions.MAX_CONCURRENT),
                // checkpoints are always written to storage and kept when the job is cancelled (a new run resumes from them)
                new Views.Externalization(true, false),
                c.get(ExecutionOptions.STATE_BACKEND), "filesystem", c.get(CheckpointingOptions.UNALIGNED),
                c.get(CheckpointingOptions.TOLERABLE_FAILED), c.get(CheckpointingOptions.ALIGNED_TIMEOUT),
                true, c.get(CheckpointingOptions.NUM_RETAINED), c.get(CheckpointingOptions.DIRECTORY),
                c.get(CheckpointingOptions.SAVEPOINT_DIRECTORY));
    }

    /** @return {@code GET /jobs/:id/exceptions} of the job's failures */
    static Views.JobExceptions exceptions(NodeJob job) {
        ExceptionHistory.Snapshot s = job.exceptions().snapshot();
        List<Views.ExceptionEntry> entries = s.entries().stream()
                .map(e -> new Views.ExceptionEntry(e.exceptionName(), e.message(), e.stacktrace(), e.timestamp(), null, null,
                        e.restart()))
                .toList();
        ExceptionHistory.Failure root = s.entries().isEmpty() ? null : s.entries().get(0);
        return new Views.JobExceptions(root == null ? null : root.stacktrace(), root == null ? null : root.timestamp(),
                s.truncated(), new Views.ExceptionHistoryView(entries, s.truncated()));
    }

    /**
     * Flink's {@code state_size}: the full size of the state the checkpoint refers to, that is what it wrote
     * ({@code checkpointed_size}) plus the files of earlier checkpoints its incremental subtasks reuse.
     *
     * @return bytes; equal to {@code checkpointedSizeBytes} unless some subtask's snapshot was incremental
     */
    static long stateSize(CompletedCheckpointStats c) {
        return c.checkpointedSizeBytes() + c.subtasks().values().stream()
                .mapToLong(m -> m.stateSizeBytes() - m.checkpointedSizeBytes()).sum();
    }

    /** @return the view of a completed checkpoint, or null for null */
    static Views.CheckpointView checkpoint(CompletedCheckpointStats c) {
        if (c == null) {
            return null;
        }
        Collection<SubtaskCheckpointMetrics> m = c.subtasks().values();
        return new Views.CheckpointView(c.checkpointId(), "COMPLETED", c.isSavepoint(), c.isFinal(), c.triggerTimestamp(),
                max(m, SubtaskCheckpointMetrics::ackTimestamp), stateSize(c), c.checkpointedSizeBytes(),
                c.endToEndDurationMs(), sum(m, SubtaskCheckpointMetrics::processedDataDuringAlignmentBytes),
                c.persistedDataBytes(), m.size(), m.size(),
                max(m, SubtaskCheckpointMetrics::startDelayMs), max(m, SubtaskCheckpointMetrics::alignmentDurationMs),
                max(m, SubtaskCheckpointMetrics::syncDurationMs), max(m, SubtaskCheckpointMetrics::asyncDurationMs),
                m.stream().anyMatch(SubtaskCheckpointMetrics::unaligned), c.externalPath());
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
