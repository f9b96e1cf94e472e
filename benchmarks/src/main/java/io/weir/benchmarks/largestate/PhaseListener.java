package io.weir.benchmarks.largestate;

import io.weir.benchmarks.CheckpointRecorder;
import io.weir.core.checkpoint.CheckpointFailureReason;
import io.weir.core.coordination.CompletedCheckpointStats;
import io.weir.core.engine.JobListener;
import io.weir.core.engine.JobStatus;

import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Follows one job of the large-state benchmark: passes checkpoints to a {@link CheckpointRecorder} (which writes
 * their lines), lets the harness wait for the next completed checkpoint, and stamps with {@link System#nanoTime()}
 * when the restore point was chosen ({@link #onRestore}: {@code _metadata} read, CRCs checked) and when the job
 * reached RUNNING (every task deployed and its keyed state restored: for RocksDB the files downloaded and the
 * instance opened, for the heap backend every entry read into memory). Thread-safe (coordinator and job master
 * threads call in; the harness reads).
 */
final class PhaseListener implements JobListener {
    private final CheckpointRecorder recorder;
    private final Semaphore checkpoints = new Semaphore(0);
    /** 0 until the stamp happened. */
    private final AtomicLong restoredNanos = new AtomicLong();
    private final AtomicLong runningNanos = new AtomicLong();
    private volatile long restoredCheckpointId = -1;

    /** @param recorder writes a line per completed checkpoint and keeps their statistics */
    PhaseListener(CheckpointRecorder recorder) {
        this.recorder = recorder;
    }

    @Override
    public void onCompleted(CompletedCheckpointStats stats) {
        recorder.onCompleted(stats);
        checkpoints.release();
    }

    @Override
    public void onFailed(long checkpointId, CheckpointFailureReason reason, Throwable cause) {
        recorder.onFailed(checkpointId, reason, cause);
    }

    @Override
    public void onRestart(String jobName, int attempt, Throwable cause) {
        recorder.onRestart(jobName, attempt, cause);
    }

    @Override
    public void onRestore(String jobName, long checkpointId, String pointer) {
        restoredCheckpointId = checkpointId;
        restoredNanos.compareAndSet(0, System.nanoTime());
    }

    @Override
    public void onStatusChange(String jobName, JobStatus from, JobStatus to) {
        recorder.onStatusChange(jobName, from, to);
        if (to == JobStatus.RUNNING) {
            runningNanos.compareAndSet(0, System.nanoTime());
        }
    }

    /**
     * Waits for one more completed checkpoint than the previous calls consumed.
     *
     * @return false if none completed within {@code timeoutMs}
     * @throws InterruptedException if interrupted while waiting
     */
    boolean awaitCheckpoint(long timeoutMs) throws InterruptedException {
        return checkpoints.tryAcquire(timeoutMs, TimeUnit.MILLISECONDS);
    }

    /** @return the recorder this listener feeds */
    CheckpointRecorder recorder() {
        return recorder;
    }

    /** @return {@link System#nanoTime()} when the restore point was chosen, 0 if the job did not restore */
    long restoredNanos() {
        return restoredNanos.get();
    }

    /** @return the id of the checkpoint restored from, -1 if none */
    long restoredCheckpointId() {
        return restoredCheckpointId;
    }

    /** @return {@link System#nanoTime()} of the first switch to RUNNING, 0 if not yet */
    long runningNanos() {
        return runningNanos.get();
    }
}
