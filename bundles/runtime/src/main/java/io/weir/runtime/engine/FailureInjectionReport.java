package io.weir.runtime.engine;

import io.weir.core.checkpoint.CheckpointFailureReason;
import io.weir.core.config.ExecutionOptions;
import io.weir.core.coordination.CompletedCheckpointStats;
import io.weir.core.engine.JobListener;
import io.weir.core.engine.JobStatus;
import io.weir.core.job.JobGraph;
import io.weir.runtime.tasks.InjectedFailureException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Tells the user when a {@code debug.inject-failure.*} failure never fired: a listener around the
 * job's own that watches restart causes for an {@link InjectedFailureException} and, when the job
 * FINISHED without one, logs a WARN and calls {@link JobListener#onWarning} (which {@code weir run}
 * prints) naming the options. Without it a demo of failover that finished too quickly looks
 * exactly like one that failed over.
 *
 * <p>Thread-safe: events come from the job master's and the coordinator's threads; the flags are atomic.
 */
final class FailureInjectionReport implements JobListener {
    private static final Logger LOG = LoggerFactory.getLogger(FailureInjectionReport.class);

    private final JobGraph job;
    private final JobListener delegate;
    /** Set once an injected failure was seen as a restart cause. */
    private final AtomicBoolean fired = new AtomicBoolean();
    /** Set once the warning was given. */
    private final AtomicBoolean reported = new AtomicBoolean();
    private final AtomicInteger completedCheckpoints = new AtomicInteger();

    private FailureInjectionReport(JobGraph job, JobListener delegate) {
        this.job = job;
        this.delegate = delegate;
    }

    /**
     * @param job the job being submitted
     * @param listener the caller's listener
     * @return {@code listener} itself if the job sets no {@code debug.inject-failure.operator}, else
     *         a listener that forwards every event to it and adds the warning described above
     */
    static JobListener wrapIfInjecting(JobGraph job, JobListener listener) {
        return job.config().get(ExecutionOptions.INJECT_FAILURE_OPERATOR) == null ? listener : new FailureInjectionReport(job, listener);
    }

    @Override
    public void onCompleted(CompletedCheckpointStats stats) {
        completedCheckpoints.incrementAndGet();
        delegate.onCompleted(stats);
    }

    @Override
    public void onFailed(long checkpointId, CheckpointFailureReason reason, Throwable cause) {
        delegate.onFailed(checkpointId, reason, cause);
    }

    @Override
    public void onRestore(String jobName, long checkpointId, String pointer) {
        delegate.onRestore(jobName, checkpointId, pointer);
    }

    @Override
    public void onRestart(String jobName, int attempt, Throwable cause) {
        if (InjectedFailureException.isInjected(cause)) {
            fired.set(true);
        }
        delegate.onRestart(jobName, attempt, cause);
    }

    @Override
    public void onWarning(String jobName, String message) {
        delegate.onWarning(jobName, message);
    }

    /**
     * On FINISHED, before it is forwarded: the warning if the failure never fired. Only then: a job
     * that FAILED or was CANCELED says so itself (and a job failed by the injected failure itself,
     * with no restarts allowed, is reported as FAILED without a restart event to recognise it by).
     */
    @Override
    public void onStatusChange(String jobName, JobStatus from, JobStatus to) {
        if (to == JobStatus.FINISHED && !fired.get() && reported.compareAndSet(false, true)) {
            String message = notFiredMessage();
            LOG.warn("Job {}: {}", job.name(), message);
            delegate.onWarning(jobName, message);
        }
        delegate.onStatusChange(jobName, from, to);
    }

    private String notFiredMessage() {
        String operator = job.config().get(ExecutionOptions.INJECT_FAILURE_OPERATOR);
        long records = job.config().get(ExecutionOptions.INJECT_FAILURE_AFTER_RECORDS);
        int checkpoints = job.config().get(ExecutionOptions.INJECT_FAILURE_AFTER_CHECKPOINTS);
        return "the failure injection did not fire: " + ExecutionOptions.INJECT_FAILURE_OPERATOR.key() + "=" + operator
                + " asked subtask 0 of '" + operator + "' to fail at its first record after "
                + ExecutionOptions.INJECT_FAILURE_AFTER_RECORDS.key() + "=" + records + " records"
                + (checkpoints > 0 ? " and " + ExecutionOptions.INJECT_FAILURE_AFTER_CHECKPOINTS.key() + "=" + checkpoints
                        + " completed checkpoints" : "")
                + ", but the job finished first (completed checkpoints: " + completedCheckpoints.get() + ");"
                + " lower " + ExecutionOptions.INJECT_FAILURE_AFTER_RECORDS.key() + " below the records that subtask receives"
                + (checkpoints > 0 ? " or set a shorter execution.checkpointing.interval" : "");
    }
}
