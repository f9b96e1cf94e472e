package io.weir.rest.node;

import io.weir.core.engine.JobStatus;

import java.util.Map;
import java.util.Objects;

/**
 * What the node's job registry keeps of one job: enough to submit it again after a node restart
 * (the spec text as submitted, its base directory and {@code --set} overrides) and to list it as
 * history once it ended.
 *
 * @param id the job id, 32 lower-case hex digits
 * @param name the job's name
 * @param spec the job spec exactly as submitted (JSON object text)
 * @param baseDirectory absolute directory relative paths in the spec resolve against
 * @param overrides the {@code --set} configuration overrides, key to value
 * @param status the job's status when this record was written
 * @param submitTime when the node first accepted the job, ms since the epoch
 * @param endTime when the job ended, ms since the epoch, or -1 while it has not
 * @param failure why the job failed (message), or null
 * @param latestCheckpoint the newest completed checkpoint the node saw of the job, or null
 * @param latestSavepoint the newest completed savepoint the node saw of the job, or null
 */
public record JobRecord(String id, String name, String spec, String baseDirectory, Map<String, String> overrides,
        JobStatus status, long submitTime, long endTime, String failure, Latest latestCheckpoint, Latest latestSavepoint) {
    /**
     * What the registry keeps of a completed checkpoint or savepoint: enough to list it after a node
     * restart (and to find a savepoint to resume from after stop-with-savepoint).
     *
     * @param checkpointId its id
     * @param path its directory (absolute), or null where unknown
     * @param triggerTimestamp when it was triggered, ms since the epoch
     * @param durationMs end-to-end duration, ms
     * @param sizeBytes checkpointed state bytes
     * @param persistedBytes persisted in-flight bytes
     */
    public record Latest(long checkpointId, String path, long triggerTimestamp, long durationMs, long sizeBytes,
            long persistedBytes) {
        /** @return the registry's summary of {@code stats} */
        static Latest of(io.weir.core.coordination.CompletedCheckpointStats stats) {
            return stats == null ? null : new Latest(stats.checkpointId(), stats.externalPath(), stats.triggerTimestamp(),
                    stats.endToEndDurationMs(), stats.checkpointedSizeBytes(), stats.persistedDataBytes());
        }

        /** @return statistics with these figures and no per-subtask metrics ({@code savepoint}: of a savepoint) */
        io.weir.core.coordination.CompletedCheckpointStats toStats(boolean savepoint) {
            return new io.weir.core.coordination.CompletedCheckpointStats(checkpointId, triggerTimestamp, durationMs,
                    sizeBytes, persistedBytes, false, Map.of(), savepoint, path);
        }
    }

    /** A record without a latest checkpoint or savepoint. */
    public JobRecord(String id, String name, String spec, String baseDirectory, Map<String, String> overrides,
            JobStatus status, long submitTime, long endTime, String failure) {
        this(id, name, spec, baseDirectory, overrides, status, submitTime, endTime, failure, null, null);
    }

    /**
     * @throws IllegalArgumentException if the id is not 32 lower-case hex digits
     * @throws NullPointerException if id, name, spec, baseDirectory, overrides or status is null
     */
    public JobRecord {
        Objects.requireNonNull(id, "id");
        if (!id.matches("[0-9a-f]{32}")) {
            throw new IllegalArgumentException("job id '" + id + "' is not 32 lower-case hex digits");
        }
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(spec, "spec");
        Objects.requireNonNull(baseDirectory, "baseDirectory");
        overrides = Map.copyOf(overrides);
        Objects.requireNonNull(status, "status");
    }

    /** @return this record with another status, end time and failure */
    JobRecord withStatus(JobStatus newStatus, long newEndTime, String newFailure) {
        return new JobRecord(id, name, spec, baseDirectory, overrides, newStatus, submitTime, newEndTime, newFailure,
                latestCheckpoint, latestSavepoint);
    }

    /** @return this record with another latest checkpoint and savepoint (null: none) */
    JobRecord withLatest(Latest checkpoint, Latest savepoint) {
        return new JobRecord(id, name, spec, baseDirectory, overrides, status, submitTime, endTime, failure, checkpoint, savepoint);
    }
}
