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

    /**
     * A vertex (operator) of {@code GET /jobs/:id}, in the job's topological order; {@code inputs} (not Flink's) are
     * the ids of the vertices feeding it, in job-file order; {@code metrics} as Flink names them.
     */
    public record Vertex(String id, String name, String type, String kind, int parallelism, List<String> inputs,
            VertexMetrics metrics) {
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
            int restarts, @JsonbProperty("failure-cause") String failureCause, List<Vertex> vertices,
            @JsonbProperty("plugin-versions") List<PluginVersionView> pluginVersions, List<UpgradeView> upgrades) {
    }

    /**
     * The plugin one operator runs: {@code range} is the job's {@code version} for it ({@code any} when it gives none).
     */
    public record PluginVersionView(String operator, String type, String bundle, String version, String range) {
    }

    /**
     * One move of the job between plugin versions: {@code from}/{@code to} as {@code "operator: type bundle version"},
     * {@code downtime-ms} from the end of the stop-with-savepoint to the first row on the new version (-1 until
     * measured), {@code outcome} IN_PROGRESS, UPGRADED, ROLLED_BACK or FAILED.
     */
    public record UpgradeView(long time, List<String> from, List<String> to, String savepoint,
            @JsonbProperty("downtime-ms") long downtimeMs, String outcome, String message) {
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
            boolean unaligned, @JsonbProperty("external_path") String externalPath) {
    }

    /** {@code latest.failed} and a failed checkpoint of {@code history}. */
    public record FailedCheckpointView(long id, String status, @JsonbProperty("is_savepoint") boolean isSavepoint,
            @JsonbProperty("failure_timestamp") long failureTimestamp,
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

    /**
     * {@code GET /jobs/:id/checkpoints}; {@code history} holds {@link CheckpointView}s (COMPLETED) and
     * {@link FailedCheckpointView}s (FAILED), newest first.
     */
    public record Checkpoints(CheckpointCounts counts, LatestCheckpoints latest, List<Object> history) {
    }

    /** {@code externalization} of {@code GET /jobs/:id/checkpoints/config}. */
    public record Externalization(boolean enabled, @JsonbProperty("delete_on_cancellation") boolean deleteOnCancellation) {
    }

    /**
     * {@code GET /jobs/:id/checkpoints/config}: the job's checkpointing options (Flink's names; durations ms,
     * {@code interval} -1 when periodic checkpoints are off). Besides Flink's fields: {@code num_retained},
     * {@code checkpoint_directory} and {@code savepoint_directory} as the job configures them (null: unset).
     */
    public record CheckpointConfig(String mode, long interval, long timeout, @JsonbProperty("min_pause") long minPause,
            @JsonbProperty("max_concurrent") int maxConcurrent, Externalization externalization,
            @JsonbProperty("state_backend") String stateBackend, @JsonbProperty("checkpoint_storage") String checkpointStorage,
            @JsonbProperty("unaligned_checkpoints") boolean unalignedCheckpoints,
            @JsonbProperty("tolerable_failed_checkpoints") int tolerableFailedCheckpoints,
            @JsonbProperty("aligned_checkpoint_timeout") long alignedCheckpointTimeout,
            @JsonbProperty("checkpoints_after_tasks_finish") boolean checkpointsAfterTasksFinish,
            @JsonbProperty("num_retained") int numRetained,
            @JsonbProperty("checkpoint_directory") String checkpointDirectory,
            @JsonbProperty("savepoint_directory") String savepointDirectory) {
    }

    /** One vertex's part of a checkpoint: {@code tasks.<vertex>} of the checkpoint details. Sums and maxima over its subtasks. */
    public record TaskCheckpointView(long id, String status,
            @JsonbProperty("latest_ack_timestamp") long latestAckTimestamp,
            @JsonbProperty("checkpointed_size") long checkpointedSize, @JsonbProperty("state_size") long stateSize,
            @JsonbProperty("end_to_end_duration") long endToEndDuration,
            @JsonbProperty("alignment_buffered") long alignmentBuffered,
            @JsonbProperty("processed_data") long processedData, @JsonbProperty("persisted_data") long persistedData,
            @JsonbProperty("num_subtasks") int numSubtasks,
            @JsonbProperty("num_acknowledged_subtasks") int numAcknowledgedSubtasks) {
    }

    /**
     * {@code GET /jobs/:id/checkpoints/details/:cid}. A failed checkpoint has {@code failure_timestamp} and
     * {@code failure_message}, -1 for the times it has no measurement of, and no {@code tasks} entries (the node
     * keeps no per-subtask data of failed checkpoints).
     */
    public record CheckpointDetails(long id, String status, @JsonbProperty("is_savepoint") boolean isSavepoint,
            @JsonbProperty("is_final") boolean isFinal, @JsonbProperty("checkpoint_type") String checkpointType,
            @JsonbProperty("trigger_timestamp") long triggerTimestamp,
            @JsonbProperty("latest_ack_timestamp") long latestAckTimestamp,
            @JsonbProperty("state_size") long stateSize, @JsonbProperty("checkpointed_size") long checkpointedSize,
            @JsonbProperty("end_to_end_duration") long endToEndDuration,
            @JsonbProperty("alignment_buffered") long alignmentBuffered,
            @JsonbProperty("processed_data") long processedData, @JsonbProperty("persisted_data") long persistedData,
            @JsonbProperty("num_subtasks") int numSubtasks,
            @JsonbProperty("num_acknowledged_subtasks") int numAcknowledgedSubtasks,
            @JsonbProperty("external_path") String externalPath,
            @JsonbProperty("failure_timestamp") Long failureTimestamp, @JsonbProperty("failure_message") String failureMessage,
            Map<String, TaskCheckpointView> tasks) {
    }

    /** {@code checkpoint} of a subtask: the synchronous and asynchronous snapshot parts, ms. */
    public record CheckpointDuration(long sync, long async) {
    }

    /**
     * {@code alignment} of a subtask: bytes processed while aligning ({@code processed}, and {@code buffered},
     * Flink's deprecated name for it), in-flight bytes persisted ({@code persisted}), alignment time ms ({@code duration}).
     */
    public record Alignment(long buffered, long processed, long persisted, long duration) {
    }

    /** One subtask of {@code GET /jobs/:id/checkpoints/details/:cid/subtasks/:vertex}. */
    public record SubtaskCheckpointView(int index, String status, @JsonbProperty("ack_timestamp") long ackTimestamp,
            @JsonbProperty("end_to_end_duration") long endToEndDuration, @JsonbProperty("state_size") long stateSize,
            @JsonbProperty("checkpointed_size") long checkpointedSize, CheckpointDuration checkpoint, Alignment alignment,
            @JsonbProperty("start_delay") long startDelay, @JsonbProperty("unaligned_checkpoint") boolean unalignedCheckpoint,
            boolean aborted) {
    }

    /** Minimum, maximum and average (rounded down) of one measurement over the subtasks. */
    public record StatsSummary(long min, long max, long avg) {
    }

    /** {@code summary.checkpoint_duration}. */
    public record DurationSummary(StatsSummary sync, StatsSummary async) {
    }

    /** {@code summary.alignment}. */
    public record AlignmentSummary(StatsSummary buffered, StatsSummary processed, StatsSummary persisted,
            StatsSummary duration) {
    }

    /** {@code summary} of {@code GET /jobs/:id/checkpoints/details/:cid/subtasks/:vertex}. */
    public record SubtasksSummary(@JsonbProperty("state_size") StatsSummary stateSize,
            @JsonbProperty("checkpointed_size") StatsSummary checkpointedSize,
            @JsonbProperty("end_to_end_duration") StatsSummary endToEndDuration,
            @JsonbProperty("checkpoint_duration") DurationSummary checkpointDuration, AlignmentSummary alignment,
            @JsonbProperty("start_delay") StatsSummary startDelay) {
    }

    /** {@code GET /jobs/:id/checkpoints/details/:cid/subtasks/:vertex}: the vertex's totals, a summary and each subtask by index. */
    public record TaskCheckpointDetails(long id, String status,
            @JsonbProperty("latest_ack_timestamp") long latestAckTimestamp,
            @JsonbProperty("checkpointed_size") long checkpointedSize, @JsonbProperty("state_size") long stateSize,
            @JsonbProperty("end_to_end_duration") long endToEndDuration,
            @JsonbProperty("alignment_buffered") long alignmentBuffered,
            @JsonbProperty("processed_data") long processedData, @JsonbProperty("persisted_data") long persistedData,
            @JsonbProperty("num_subtasks") int numSubtasks,
            @JsonbProperty("num_acknowledged_subtasks") int numAcknowledgedSubtasks,
            SubtasksSummary summary, List<SubtaskCheckpointView> subtasks) {
    }

    /**
     * One failure of {@code exceptionHistory.entries}: the cause's class name and stack trace, when the node saw it,
     * and whether the job restarted after it. {@code taskName} and {@code location} are left out: the engine reports
     * a failure's cause, not the task it came from.
     */
    public record ExceptionEntry(String exceptionName, String message, String stacktrace, long timestamp,
            String taskName, String location, boolean restarted) {
    }

    /** {@code exceptionHistory}: newest first; {@code truncated} when older failures were dropped. */
    public record ExceptionHistoryView(List<ExceptionEntry> entries, boolean truncated) {
    }

    /**
     * {@code GET /jobs/:id/exceptions}: {@code root-exception} (the newest failure's stack trace) and its
     * {@code timestamp}, both left out while the job has not failed, and the history of failures.
     */
    public record JobExceptions(@JsonbProperty("root-exception") String rootException, Long timestamp,
            boolean truncated, ExceptionHistoryView exceptionHistory) {
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

    /**
     * One setting of a plugin type ({@code io.weir.api.plugin.PluginSetting}) in {@code GET /plugins}.
     *
     * @param name the key in the {@code config} object
     * @param type the JSON shape it takes, in words
     * @param defaultValue the default as text; null (JSON {@code null}) if it has none
     * @param required whether a job without it is rejected
     * @param description one line
     */
    public record Setting(String name, String type, @JsonbProperty(value = "default", nillable = true) String defaultValue,
            boolean required, String description) {
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
