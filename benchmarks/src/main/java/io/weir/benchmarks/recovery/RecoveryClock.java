package io.weir.benchmarks.recovery;

import io.weir.core.coordination.CompletedCheckpointStats;
import io.weir.core.engine.JobListener;
import io.weir.core.engine.JobStatus;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The timeline of one injected failure and the job's recovery from it, stamped with {@link System#nanoTime()} by
 * the failing sink ({@link FailureProbeSinkFactory}) and by the engine's {@link JobListener} callbacks:
 * <ol>
 *   <li>{@code failed}: the sink throws (the harness {@link #arm armed} it);</li>
 *   <li>{@code cancelled}: {@link #onRestart}: the job master cancelled the failed attempt's tasks and schedules
 *       the restart (restart delay 0);</li>
 *   <li>{@code restored}: {@link #onRestore}: the restore point is chosen and read ({@code _metadata}, CRCs);</li>
 *   <li>{@code running}: {@link #onStatusChange} to RUNNING: every task of the new attempt deployed, its state
 *       restored, and running;</li>
 *   <li>{@code firstRecord}: the first row any sink subtask writes after that.</li>
 * </ol>
 * One round at a time: {@link #arm} starts one, {@link #recovered} completes when its first record arrived.
 * Thread-safe.
 */
public final class RecoveryClock implements JobListener {
    private final AtomicBoolean armed = new AtomicBoolean();
    private final AtomicLong completedCheckpoints = new AtomicLong();
    private volatile Round round;

    /**
     * The stamps of one round, ns from {@link System#nanoTime()}; 0 until reached.
     */
    static final class Round {
        volatile long failed;
        volatile long cancelled;
        volatile long restored;
        volatile long running;
        volatile long firstRecord;
        final CompletableFuture<Round> recovered = new CompletableFuture<>();
    }

    /**
     * Starts a round: the next row any probe sink subtask writes fails its task.
     *
     * @return the round, whose {@code recovered} future completes at the first row after the restart
     * @throws IllegalStateException if the previous round has not recovered yet
     */
    Round arm() {
        Round previous = round;
        if (previous != null && !previous.recovered.isDone()) {
            throw new IllegalStateException("the previous failure has not recovered yet");
        }
        Round next = new Round();
        round = next;
        armed.set(true);
        return next;
    }

    /** @return checkpoints completed so far (all attempts) */
    long completedCheckpoints() {
        return completedCheckpoints.get();
    }

    /**
     * Called by the probe sink for every row. Task threads.
     *
     * @param now {@link System#nanoTime()} at the row
     * @return whether the sink must fail now (exactly once per {@link #arm})
     */
    boolean onRow(long now) {
        Round r = round;
        if (r == null) {
            return false;
        }
        if (armed.compareAndSet(true, false)) {
            r.failed = now;
            return true;
        }
        if (r.running != 0 && r.firstRecord == 0) {
            synchronized (r) {
                if (r.firstRecord == 0) {
                    r.firstRecord = now;
                    r.recovered.complete(r);
                }
            }
        }
        return false;
    }

    @Override
    public void onRestart(String jobName, int attempt, Throwable cause) {
        Round r = round;
        if (r != null) {
            r.cancelled = System.nanoTime();
        }
    }

    @Override
    public void onRestore(String jobName, long checkpointId, String pointer) {
        Round r = round;
        if (r != null && r.cancelled != 0) {
            r.restored = System.nanoTime();
        }
    }

    @Override
    public void onStatusChange(String jobName, JobStatus from, JobStatus to) {
        Round r = round;
        if (r != null && r.cancelled != 0 && to == JobStatus.RUNNING) {
            r.running = System.nanoTime();
        }
        if (r != null && to.isTerminal()) {
            r.recovered.completeExceptionally(new IllegalStateException("job " + jobName + " ended " + to));
        }
    }

    @Override
    public void onCompleted(CompletedCheckpointStats stats) {
        completedCheckpoints.incrementAndGet();
    }
}
