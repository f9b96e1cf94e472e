package io.weir.runtime.time;

/**
 * The task's wall clock and its way to be woken at a time: the runtime schedules a mail on the task's
 * mailbox; tests use a manual clock.
 */
public interface ProcessingTimeScheduler {
    /** @return the current wall-clock time, ms since the epoch */
    long now();

    /**
     * Asks for one call of the timer service's {@code onProcessingTime} on the task thread at or after
     * {@code timestamp}; replaces the previous request (only the earliest pending timer needs a wake-up).
     */
    void wakeUpAt(long timestamp);

    /** Cancels the pending wake-up, if any (task end). */
    void cancel();
}
