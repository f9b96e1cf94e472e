package io.weir.coordinator;

import io.weir.core.checkpoint.CheckpointFailureReason;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.function.Consumer;

/**
 * Counts consecutive counted checkpoint failures (PROTOCOL.md §2 "CheckpointFailureManager",
 * {@link CheckpointFailureReason#isCounted()}). When the count exceeds
 * {@code execution.checkpointing.tolerable-failed-checkpoints} it fails the job once ("Exceeded
 * checkpoint tolerable failure threshold") and starts counting afresh, so the restarted job gets the
 * same tolerance. A completed checkpoint resets the count; a failure of a checkpoint older than the
 * last completed one is not counted (it cannot make the job fall further behind).
 * Not thread-safe: checkpoint timer thread only.
 */
final class CheckpointFailureManager {
    private static final Logger LOG = LoggerFactory.getLogger(CheckpointFailureManager.class);

    private final String jobName;
    private final int tolerableFailures;
    private final Consumer<Throwable> failJob;
    /** Consecutive counted failures since the last completion or job failure. Checkpoint timer thread only. */
    private int continuousFailures;
    /** Id of the last completed checkpoint, 0 if none. Checkpoint timer thread only. */
    private long lastCompletedId;

    /**
     * @param jobName the job
     * @param tolerableFailures counted failures in a row that are tolerated, ≥ 0
     * @param failJob fails the job over; called on the timer thread with no lock held
     */
    CheckpointFailureManager(String jobName, int tolerableFailures, Consumer<Throwable> failJob) {
        if (tolerableFailures < 0) {
            throw new IllegalArgumentException("tolerable failures must be >= 0, got " + tolerableFailures);
        }
        this.jobName = jobName;
        this.tolerableFailures = tolerableFailures;
        this.failJob = failJob;
    }

    /**
     * A checkpoint that had an id failed.
     *
     * @param checkpointId its id
     * @param reason why
     * @param cause the error, may be null
     */
    void onCheckpointFailure(long checkpointId, CheckpointFailureReason reason, Throwable cause) {
        if (checkpointId < lastCompletedId) {
            LOG.debug("Not counting failure of checkpoint {} of job {}: checkpoint {} already completed",
                    checkpointId, jobName, lastCompletedId);
            return;
        }
        count("checkpoint " + checkpointId, reason, cause);
    }

    /** A trigger failed before the checkpoint got an id (e.g. the id counter failed). */
    void onTriggerFailure(CheckpointFailureReason reason, Throwable cause) {
        count("a checkpoint trigger", reason, cause);
    }

    /** Checkpoint {@code checkpointId} completed: the count starts over. */
    void onCheckpointSuccess(long checkpointId) {
        continuousFailures = 0;
        lastCompletedId = Math.max(lastCompletedId, checkpointId);
    }

    /** @return counted failures in a row so far */
    int continuousFailures() {
        return continuousFailures;
    }

    private void count(String what, CheckpointFailureReason reason, Throwable cause) {
        if (!reason.isCounted()) {
            return;
        }
        continuousFailures++;
        LOG.debug("Counted failure {} of {} tolerated for job {}: {} failed ({})", continuousFailures,
                tolerableFailures, jobName, what, reason);
        if (continuousFailures > tolerableFailures) {
            RuntimeException error = new RuntimeException("Exceeded checkpoint tolerable failure threshold. Job "
                    + jobName + " had " + continuousFailures + " consecutive counted checkpoint failures (tolerable: "
                    + tolerableFailures + "); the last: " + what + " failed with " + reason + ".", cause);
            continuousFailures = 0;
            LOG.warn("Failing job {}: {}", jobName, error.getMessage());
            failJob.accept(error);
        }
    }
}
