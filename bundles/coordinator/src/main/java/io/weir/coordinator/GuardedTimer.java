package io.weir.coordinator;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.Objects;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Submits the coordinator's work to its {@link CheckpointTimer}, each task guarded so that an
 * unexpected error is logged with the job and the task's description and the timer thread survives.
 * Once {@link #markShutDown() shut down} it accepts no more work. Thread-safe: any thread may submit.
 */
final class GuardedTimer {
    /** The coordinator's category, so log lines and their configuration stay as they were before the split. */
    private static final Logger LOG = LoggerFactory.getLogger(CheckpointCoordinator.class);

    private final CheckpointTimer timer;
    private final String jobName;
    /** Set once by {@link #markShutDown()}; read by any thread. */
    private final AtomicBoolean shutDown = new AtomicBoolean();

    /**
     * @param timer the coordinator's thread and clock
     * @param jobName the job, for log lines
     */
    GuardedTimer(CheckpointTimer timer, String jobName) {
        this.timer = Objects.requireNonNull(timer, "timer");
        this.jobName = jobName;
    }

    /**
     * Runs {@code task} on the timer thread after every task submitted before it.
     *
     * @param what what the task does, for log lines ("handling the ack of ...")
     * @return false, logged at debug, if the coordinator is shut down or the timer no longer accepts tasks
     */
    boolean execute(String what, Runnable task) {
        if (shutDown.get()) {
            LOG.debug("Checkpoint coordinator of job {} is shut down; not {}", jobName, what);
            return false;
        }
        try {
            timer.execute(guarded(what, task));
            return true;
        } catch (RejectedExecutionException e) {
            LOG.debug("Checkpoint timer of job {} stopped; not {}", jobName, what);
            return false;
        }
    }

    /**
     * Runs {@code task} on the timer thread once, {@code delayMs} ms from now.
     *
     * @throws RejectedExecutionException if the timer is shut down
     */
    CheckpointTimer.Cancellable schedule(String what, Runnable task, long delayMs) {
        return timer.schedule(guarded(what, task), delayMs);
    }

    /** Wraps a timer task so that an unexpected error is logged with context and the thread survives. */
    Runnable guarded(String what, Runnable task) {
        return () -> {
            try {
                task.run();
            } catch (RuntimeException | Error e) {
                LOG.error("Unexpected error in the checkpoint timer of job {} while {}", jobName, what, e);
            }
        };
    }

    /** @return the timer's clock, ms since the epoch */
    long now() {
        return timer.now();
    }

    /** @return true on the first call only; from then on {@link #execute} refuses work */
    boolean markShutDown() {
        return shutDown.compareAndSet(false, true);
    }

    /** @return whether {@link #markShutDown()} was called */
    boolean isShutDown() {
        return shutDown.get();
    }
}
