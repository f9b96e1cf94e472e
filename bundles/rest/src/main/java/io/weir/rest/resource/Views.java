package io.weir.rest.resource;

import jakarta.json.bind.annotation.JsonbProperty;

import java.util.List;
import java.util.Map;

/**
 * The JSON bodies of the REST API, as JSON-B serializes them. Field names follow Flink's REST API
 * where Flink has the same resource (hyphenated names such as {@code start-time} through
 * {@link JsonbProperty}; checkpoint statistics in Flink's snake case). Times are ms since the epoch,
 * durations ms, sizes bytes; {@code -1} stands for "not yet" (e.g. {@code end-time} of a running
 * job). A null field is left out of the JSON. See docs/rest-api.md.
 */
public final class Views {
    private Views() {
    }

    /** Every error: {@code {"errors":["message"]}}, as Flink answers. */
    public record Errors(List<String> errors) {
    }

    /** One entry of {@code GET /jobs}. */
    public record JobIdAndStatus(String id, String status) {
    }

    /** {@code GET /jobs}. */
    public record JobList(List<JobIdAndStatus> jobs) {
    }

    /** One entry of {@code GET /jobs/overview}. */
    public record JobOverview(String jid, String name, String state,
            @JsonbProperty("start-time") long startTime, @JsonbProperty("end-time") long endTime, long duration,
            @JsonbProperty("last-checkpoint") CheckpointView lastCheckpoint) {
    }

    /** {@code GET /jobs/overview}. */
    public record JobsOverview(List<JobOverview> jobs) {
    }

    /** A vertex (task) of {@code GET /jobs/:id}; {@code metrics} as Flink names them. */
    public record Vertex(String id, String name, String type, String kind, int parallelism, VertexMetrics metrics) {
    }

    /**
     * The metrics of a vertex: {@code write-records} = rows its subtasks sent to other tasks in the current
     * attempt (0 for a sink or an operator chained into its successor).
     */
    public record VertexMetrics(@JsonbProperty("write-records") long writeRecords) {
    }

    /** {@code GET /jobs/:id}. */
    public record JobDetails(String jid, String name, String state,
            @JsonbProperty("start-time") long startTime, @JsonbProperty("end-time") long endTime, long duration, long now,
            int restarts, @JsonbProperty("failure-cause") String failureCause, List<Vertex> vertices) {
    }

    /** The answer to {@code POST /jobs}. */
    public record Submitted(String jobid, String name) {
    }

    /** {@code counts} of {@code GET /jobs/:id/checkpoints}. */
    public record CheckpointCounts(long restored, long total, @JsonbProperty("in_progress") long inProgress,
            long completed, long failed) {
    }

    /**
     * A completed checkpoint in {@code latest.completed} and {@code history}. Besides Flink's fields,
     * the maxima over all subtasks of the per-subtask durations ({@code start_delay},
     * {@code alignment_duration}, {@code sync_duration}, {@code async_duration}) and whether any subtask
     * took it unaligned.
     */
    public record CheckpointView(long id, String status, @JsonbProperty("is_savepoint") boolean isSavepoint,
            @JsonbProperty("is_final") boolean isFinal,
            @JsonbProperty("trigger_timestamp") long triggerTimestamp,
            @JsonbProperty("latest_ack_timestamp") long latestAckTimestamp,
            @JsonbProperty("state_size") long stateSize, @JsonbProperty("checkpointed_size") long checkpointedSize,
            @JsonbProperty("end_to_end_duration") long endToEndDuration,
            @JsonbProperty("processed_data") long processedData, @JsonbProperty("persisted_data") long persistedData,
            @JsonbProperty("num_subtasks") int numSubtasks,
            @JsonbProperty("num_acknowledged_subtasks") int numAcknowledgedSubtasks,
            @JsonbProperty("start_delay") long startDelay, @JsonbProperty("alignment_duration") long alignmentDuration,
            @JsonbProperty("sync_duration") long syncDuration, @JsonbProperty("async_duration") long asyncDuration,
            boolean unaligned) {
    }

    /** {@code latest.failed}. */
    public record FailedCheckpointView(long id, String status, @JsonbProperty("failure_timestamp") long failureTimestamp,
            @JsonbProperty("failure_message") String failureMessage) {
    }

    /** {@code latest.restored}. */
    public record RestoredCheckpointView(long id, @JsonbProperty("restore_timestamp") long restoreTimestamp,
            @JsonbProperty("is_savepoint") boolean isSavepoint, @JsonbProperty("external_path") String externalPath) {
    }

    /** {@code latest} of {@code GET /jobs/:id/checkpoints}; a field is absent while there is none. */
    public record LatestCheckpoints(CheckpointView completed, CheckpointView savepoint, FailedCheckpointView failed,
            RestoredCheckpointView restored) {
    }

    /** {@code GET /jobs/:id/checkpoints}. */
    public record Checkpoints(CheckpointCounts counts, LatestCheckpoints latest, List<CheckpointView> history) {
    }

    /** {@code GET /overview}. */
    public record Overview(int taskmanagers, @JsonbProperty("jobs-running") long jobsRunning,
            @JsonbProperty("jobs-finished") long jobsFinished, @JsonbProperty("jobs-cancelled") long jobsCancelled,
            @JsonbProperty("jobs-failed") long jobsFailed, @JsonbProperty("weir-version") String weirVersion) {
    }

    /** {@code GET /config}. */
    public record Config(@JsonbProperty("refresh-interval") long refreshInterval,
            @JsonbProperty("timezone-name") String timezoneName, @JsonbProperty("timezone-offset") long timezoneOffset,
            @JsonbProperty("weir-version") String weirVersion, Map<String, Boolean> features) {
    }

    /** One installed plugin type of {@code GET /plugins}. */
    public record Plugin(String type, String kind, String bundle) {
    }

    /** {@code GET /plugins}. */
    public record Plugins(List<Plugin> plugins) {
    }

    /** {@code POST /jobs/:id/checkpoints}, {@code /savepoints}, {@code /stop}: {@code {"request-id":..}}. */
    public record TriggerId(@JsonbProperty("request-id") String requestId) {
    }

    /** {@code status} of an asynchronous operation: {@code {"id":"IN_PROGRESS"|"COMPLETED"}}. */
    public record OperationState(String id) {
    }

    /** A failed operation's cause, as Flink writes it ({@code class} and {@code stack-trace}), plus its message. */
    public record FailureCause(@JsonbProperty("class") String className, String message,
            @JsonbProperty("stack-trace") String stackTrace) {
    }

    /**
     * {@code operation} of a completed asynchronous operation: {@code location} (a savepoint's directory, an absolute
     * path, as {@code weir run --from-savepoint} takes it) or {@code checkpointId}, or {@code failure-cause}; null fields are left out.
     */
    public record OperationResult(String location, Long checkpointId,
            @JsonbProperty("failure-cause") FailureCause failureCause) {
    }

    /** {@code GET /jobs/:id/savepoints/:request-id} and {@code /checkpoints/:request-id}; {@code operation} null while in progress. */
    public record OperationStatus(OperationState status, OperationResult operation) {
    }
}
