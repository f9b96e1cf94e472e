package io.weir.runtime.scheduler;

import io.weir.core.checkpoint.CheckpointMetadata;
import io.weir.core.config.CheckpointingOptions;
import io.weir.core.config.Configuration;
import io.weir.core.job.JobGraph;
import io.weir.core.job.JobVertex;
import io.weir.core.storage.CheckpointStorage;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.util.Optional;
import java.util.Set;
import java.util.SortedSet;
import java.util.stream.Collectors;

/**
 * Refuses a job submitted with a savepoint to restore from ({@code execution.savepoint.path},
 * {@code weir run --from-savepoint}) before anything is deployed, with one line saying what is wrong, so that
 * the submit fails (exit 2 in {@code weir run}) instead of the job failing later. The restore itself, and the
 * same checks again, happen in the coordinator's one restore path. Stateless.
 */
final class SavepointRestorePrecheck {
    private static final Logger LOG = LoggerFactory.getLogger(SavepointRestorePrecheck.class);

    private SavepointRestorePrecheck() {
    }

    /**
     * @param storage the job's checkpoint storage (its run lock held)
     * @param job the job
     * @throws IllegalArgumentException if the path has no readable {@code _metadata} (not a savepoint or
     *         checkpoint, missing, corrupt), if the job's checkpoint directory already holds a completed checkpoint
     *         (ambiguous), or if the savepoint holds state of operators the job lacks and
     *         {@code execution.savepoint.ignore-unclaimed-state} is not set; each message names the path and what
     *         to do
     * @throws IOException if the job's checkpoint directory cannot be read
     */
    static void check(CheckpointStorage storage, JobGraph job) throws IOException {
        Configuration config = job.config();
        String path = config.get(CheckpointingOptions.SAVEPOINT_PATH);
        if (path == null || path.isBlank()) {
            return;
        }
        Optional<String> own = storage.findLatestCompletedCheckpoint();
        if (own.isEmpty()) {
            own = storage.latestRecordedSavepoint().map(r -> "(savepoint " + r.checkpointId() + ") " + r.pointer());
        }
        if (own.isPresent() && config.get(CheckpointingOptions.SAVEPOINT_RESUME_OWN_CHECKPOINTS)) {
            LOG.info("Job {} has checkpoint {} of its own and resumes from it, not from savepoint {}", job.name(), own.get(), path);
            return;
        }
        CheckpointMetadata metadata;
        try {
            metadata = storage.loadCheckpoint(path);
        } catch (IOException e) {
            throw new IllegalArgumentException("--from-savepoint " + path + " is not a savepoint or checkpoint Weir can"
                    + " restore: " + e.getMessage(), e);
        }
        if (own.isPresent()) {
            throw new IllegalArgumentException("job " + job.name() + " already has checkpoint " + own.get() + " of an"
                    + " earlier run, so whether to resume from it or from savepoint " + path + " is ambiguous: delete the"
                    + " job's checkpoints to start from the savepoint, or drop --from-savepoint to resume from them");
        }
        Set<String> operators = job.vertices().stream().map(JobVertex::id).collect(Collectors.toSet());
        SortedSet<String> unclaimed = metadata.operatorsWithStateOutside(operators);
        if (!unclaimed.isEmpty() && !config.get(CheckpointingOptions.SAVEPOINT_IGNORE_UNCLAIMED_STATE)) {
            throw new IllegalArgumentException("savepoint " + path + " holds state of operator(s) " + unclaimed + " that job "
                    + job.name() + " does not have; give those operators the same ids, or drop their state with"
                    + " --allow-non-restored-state");
        }
        LOG.info("Job {} will start from savepoint {} (checkpoint {} of job {})", job.name(), path, metadata.checkpointId(),
                metadata.jobName());
    }
}
