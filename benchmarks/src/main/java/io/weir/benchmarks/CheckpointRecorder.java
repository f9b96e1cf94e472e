package io.weir.benchmarks;

import io.weir.core.checkpoint.CheckpointFailureReason;
import io.weir.core.checkpoint.SubtaskCheckpointMetrics;
import io.weir.core.checkpoint.TaskId;
import io.weir.core.coordination.CompletedCheckpointStats;
import io.weir.core.engine.JobListener;
import io.weir.core.engine.JobStatus;
import jakarta.json.JsonArrayBuilder;
import jakarta.json.JsonObject;
import jakarta.json.spi.JsonProvider;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.LongSupplier;

/**
 * Follows the benchmark job: writes a {@code {"type":"checkpoint",...}} line for every completed
 * checkpoint (with the time since submission and the rows the sink had counted when it completed,
 * and the subtasks of the task headed by {@code reportedVertex}, sorted by index),
 * keeps the statistics for the summary and counts failed checkpoints and restarts.
 * Thread-safe (called from the coordinator's and job master's threads).
 */
public final class CheckpointRecorder implements JobListener {
    private static final Logger LOG = LoggerFactory.getLogger(CheckpointRecorder.class);

    private final JsonProvider json;
    private final JsonLines out;
    private final String reportedVertex;
    private final List<CompletedCheckpointStats> completed = new CopyOnWriteArrayList<>();
    private final AtomicInteger failed = new AtomicInteger();
    private final AtomicInteger restarts = new AtomicInteger();
    private final LongSupplier rowsCounted;
    private final long startNanos;

    /**
     * @param json builds the lines
     * @param out where checkpoint lines go
     * @param reportedVertex the chain-head vertex id whose subtasks each line lists ({@link TaskId#vertexId()})
     * @param rowsCounted the sink's row counter, read into each line (so the rate over time shows)
     * @param startNanos {@link System#nanoTime()} at job submission; each line's {@code elapsed_ms} counts from it
     */
    public CheckpointRecorder(JsonProvider json, JsonLines out, String reportedVertex, LongSupplier rowsCounted, long startNanos) {
        this.json = json;
        this.out = out;
        this.reportedVertex = reportedVertex;
        this.rowsCounted = rowsCounted;
        this.startNanos = startNanos;
    }

    @Override
    public void onCompleted(CompletedCheckpointStats stats) {
        completed.add(stats);
        out.write(toJson(stats));
    }

    @Override
    public void onFailed(long checkpointId, CheckpointFailureReason reason, Throwable cause) {
        failed.incrementAndGet();
        LOG.warn("Checkpoint {} failed: {}", checkpointId, reason, cause);
    }

    @Override
    public void onRestart(String jobName, int attempt, Throwable cause) {
        restarts.incrementAndGet();
        LOG.warn("Job {} restarting (attempt {})", jobName, attempt, cause);
    }

    @Override
    public void onStatusChange(String jobName, JobStatus from, JobStatus to) {
        LOG.info("Job {}: {} -> {}", jobName, from, to);
    }

    /** @return a snapshot of the completed checkpoints so far, in completion order */
    public List<CompletedCheckpointStats> completed() {
        return new ArrayList<>(completed);
    }

    /** @return checkpoints reported failed so far */
    public int failed() {
        return failed.get();
    }

    /** @return restarts reported so far */
    public int restarts() {
        return restarts.get();
    }

    /** @return the checkpoint line of {@code stats} */
    JsonObject toJson(CompletedCheckpointStats stats) {
        JsonArrayBuilder subtasks = json.createArrayBuilder();
        stats.subtasks().entrySet().stream()
                .filter(e -> e.getKey().vertexId().equals(reportedVertex))
                .sorted(Comparator.comparingInt((Map.Entry<TaskId, SubtaskCheckpointMetrics> e) -> e.getKey().subtaskIndex()))
                .forEach(e -> {
                    SubtaskCheckpointMetrics m = e.getValue();
                    subtasks.add(json.createObjectBuilder()
                            .add("index", e.getKey().subtaskIndex())
                            .add("start_delay_ms", m.startDelayMs())
                            .add("alignment_ms", m.alignmentDurationMs())
                            .add("sync_ms", m.syncDurationMs())
                            .add("async_ms", m.asyncDurationMs())
                            .add("checkpointed_size_bytes", m.checkpointedSizeBytes())
                            .add("state_size_bytes", m.stateSizeBytes())
                            .add("persisted_data_bytes", m.persistedDataBytes())
                            .add("processed_during_alignment_bytes", m.processedDataDuringAlignmentBytes())
                            .add("unaligned", m.unaligned()));
                });
        return json.createObjectBuilder()
                .add("type", "checkpoint")
                .add("id", stats.checkpointId())
                .add("end_to_end_duration_ms", stats.endToEndDurationMs())
                .add("checkpointed_size_bytes", stats.checkpointedSizeBytes())
                .add("state_size_bytes", stats.checkpointedSizeBytes() + stats.subtasks().values().stream()
                        .mapToLong(m -> m.stateSizeBytes() - m.checkpointedSizeBytes()).sum())
                .add("persisted_data_bytes", stats.persistedDataBytes())
                .add("elapsed_ms", TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNanos))
                .add("rows_counted", rowsCounted.getAsLong())
                .add("subtasks", subtasks)
                .build();
    }
}
