package io.weir.cli.command;

import io.weir.core.checkpoint.CheckpointFailureReason;
import io.weir.core.coordination.CompletedCheckpointStats;
import io.weir.core.engine.JobListener;

import java.io.PrintStream;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Prints one line per checkpoint event and restart of a job, the way {@code weir run} shows
 * progress:
 * <pre>
 * Completed checkpoint 7 for job flight-delays (5714 bytes, 12 ms)
 * Checkpoint 8 of job flight-delays failed: Checkpoint expired before completing.
 * Restarting job flight-delays (attempt 1) after: java.io.IOException: disk full
 * Warning: job flight-delays: the failure injection did not fire: ...
 * </pre>
 * Bytes are {@code checkpointedSizeBytes}, ms {@code endToEndDurationMs} (PROTOCOL.md §5). Also
 * remembers the last completed checkpoint for the final table. Thread-safe: called from the
 * coordinator's and the scheduler's threads; {@link PrintStream} synchronizes each line.
 */
public final class ConsoleJobListener implements JobListener {
    private final PrintStream out;
    /** Last completed checkpoint; written by coordinator threads, read by the command thread. */
    private final AtomicReference<CompletedCheckpointStats> lastCompleted = new AtomicReference<>();
    /** Completed checkpoints so far; same threads as {@link #lastCompleted}. */
    private final AtomicInteger completed = new AtomicInteger();
    /** Job name, for the lines about the job; set before submit. */
    private final String jobName;

    /**
     * @param jobName the job's name, printed in every line
     * @param out where the lines go (the console)
     */
    public ConsoleJobListener(String jobName, PrintStream out) {
        this.jobName = jobName;
        this.out = out;
    }

    @Override
    public void onCompleted(CompletedCheckpointStats stats) {
        completed.incrementAndGet();
        lastCompleted.accumulateAndGet(stats, (old, now) -> old == null || now.checkpointId() >= old.checkpointId() ? now : old);
        out.println((stats.isSavepoint() ? "Completed savepoint " : "Completed checkpoint ") + stats.checkpointId() + " for job "
                + jobName + (stats.isSavepoint() && stats.externalPath() != null ? " at " + stats.externalPath() : "") + " ("
                + stats.checkpointedSizeBytes() + " bytes, " + stats.endToEndDurationMs() + " ms"
                + (stats.persistedDataBytes() > 0 ? ", " + stats.persistedDataBytes() + " bytes in flight persisted" : "") + ")");
    }

    @Override
    public void onFailed(long checkpointId, CheckpointFailureReason reason, Throwable cause) {
        out.println("Checkpoint " + checkpointId + " of job " + jobName + " failed: " + reason.message()
                + (cause == null ? "" : " (" + cause + ")"));
    }

    @Override
    public void onRestore(String name, long checkpointId, String pointer) {
        out.println("Restoring job " + name + " from checkpoint " + checkpointId + " (" + pointer + ")");
    }

    @Override
    public void onRestart(String name, int attempt, Throwable cause) {
        out.println("Restarting job " + name + " (attempt " + attempt + ") after: " + cause);
    }

    /** Prints {@code Warning: job <name>: <message>}. */
    @Override
    public void onWarning(String name, String message) {
        out.println("Warning: job " + name + ": " + message);
    }

    /** @return the completed checkpoint with the highest id so far, or null */
    public CompletedCheckpointStats lastCompleted() {
        return lastCompleted.get();
    }

    /** @return how many checkpoints completed so far */
    public int completedCount() {
        return completed.get();
    }
}
