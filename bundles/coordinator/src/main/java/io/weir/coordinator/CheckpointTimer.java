package io.weir.coordinator;

import java.util.concurrent.RejectedExecutionException;

/**
 * The coordinator's single thread and clock ("checkpoint timer"): periodic triggers, timeouts and
 * all ack/decline/completion handling run on it, one task at a time, so the coordinator's
 * bookkeeping needs no lock and no lock is held while it calls out to tasks, storage or hooks
 * (STYLE.md, the Felix SCR lesson). Tests substitute a manual implementation with a fake clock.
 */
public interface CheckpointTimer {

    /** A scheduled task that can be cancelled. */
    interface Cancellable {
        /** Cancels the task if it has not started; idempotent. */
        void cancel();
    }

    /** @return the current time, ms since the epoch */
    long now();

    /**
     * Runs {@code task} on the timer thread after every task submitted before it.
     *
     * @throws RejectedExecutionException after {@link #shutdown()}
     */
    void execute(Runnable task);

    /**
     * Runs {@code task} on the timer thread once, {@code delayMs} ms from now.
     *
     * @param delayMs delay in ms, ≥ 0
     * @throws RejectedExecutionException after {@link #shutdown()}
     */
    Cancellable schedule(Runnable task, long delayMs);

    /** @return whether the calling thread is the timer thread */
    boolean isTimerThread();

    /**
     * Runs the tasks already submitted with {@link #execute}, then stops the thread; scheduled tasks
     * that are not yet due are dropped. Returns at once.
     */
    void shutdown();

    /**
     * Waits for the thread to stop after {@link #shutdown()}.
     *
     * @param timeoutMs maximum wait in ms
     * @return whether it stopped in time
     * @throws InterruptedException if interrupted while waiting
     */
    boolean awaitTermination(long timeoutMs) throws InterruptedException;
}
