package io.weir.coordinator;

import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * The production {@link CheckpointTimer}: one daemon thread named {@code checkpoint timer (<job>)},
 * created lazily on the first submitted task, and the system clock.
 */
public final class ScheduledExecutorCheckpointTimer implements CheckpointTimer {
    private final ScheduledThreadPoolExecutor executor;
    /** The timer thread once started; written by the thread factory, read by any thread. */
    private volatile Thread timerThread;

    /** @param jobName the job, for the thread name */
    public ScheduledExecutorCheckpointTimer(String jobName) {
        this.executor = new ScheduledThreadPoolExecutor(1, r -> {
            Thread t = new Thread(r, "checkpoint timer (" + jobName + ")");
            t.setDaemon(true);
            timerThread = t;
            return t;
        });
        executor.setRemoveOnCancelPolicy(true);
    }

    @Override
    public long now() {
        return System.currentTimeMillis();
    }

    @Override
    public void execute(Runnable task) {
        executor.execute(task);
    }

    @Override
    public Cancellable schedule(Runnable task, long delayMs) {
        ScheduledFuture<?> f = executor.schedule(task, Math.max(0, delayMs), TimeUnit.MILLISECONDS);
        return () -> f.cancel(false);
    }

    @Override
    public boolean isTimerThread() {
        return Thread.currentThread() == timerThread;
    }

    @Override
    public void shutdown() {
        // Queued behind every task submitted so far; shutdownNow then drops the not-yet-due
        // timeouts and periodic ticks, which plain shutdown() would keep running.
        try {
            executor.execute(executor::shutdownNow);
        } catch (java.util.concurrent.RejectedExecutionException alreadyShutDown) {
            executor.shutdownNow();
        }
    }

    @Override
    public boolean awaitTermination(long timeoutMs) throws InterruptedException {
        return executor.awaitTermination(timeoutMs, TimeUnit.MILLISECONDS);
    }
}
