package io.weir.api.operator;

/**
 * Per-key timers of a keyed operator, and the operator's view of time (Flink's {@code TimerService} of a
 * {@code KeyedProcessFunction}). Obtained from {@link OperatorContext#timerService()}. Task thread only.
 *
 * <p>A timer belongs to the current key (the key of the row being processed, or of the timer being fired)
 * and is identified by (key, domain, timestamp): registering the same timer twice keeps one. Timers are
 * keyed state: they are part of every checkpoint and savepoint, stored per key group, and restored with
 * their key group when the job is rescaled. When a timer fires, the runtime scopes keyed state to its key
 * and calls {@link StreamOperator#onTimer}.
 *
 * <ul>
 * <li>Event-time timers fire, in timestamp order, when a watermark {@code >= timestamp} reaches the
 *     operator, before the operator sees that watermark ({@link StreamOperator#processWatermark}).</li>
 * <li>Processing-time timers fire as mails on the task thread once the wall clock reaches the timestamp
 *     (never earlier; later under load). After a restore, timers whose time has passed fire at once.</li>
 * </ul>
 * Timestamps are milliseconds since the epoch (UTC).
 */
public interface TimerService {
    /** @return the operator's current watermark, ms; {@link Long#MIN_VALUE} before the first watermark */
    long currentWatermark();

    /** @return the task's wall-clock time, ms since the epoch */
    long currentProcessingTime();

    /**
     * Registers an event-time timer for the current key; a timestamp at or below the current watermark
     * fires with the next watermark.
     *
     * @throws IllegalStateException if there is no current key (e.g. called from {@code open})
     */
    void registerEventTimeTimer(long timestamp);

    /**
     * Registers a processing-time timer for the current key.
     *
     * @throws IllegalStateException if there is no current key
     */
    void registerProcessingTimeTimer(long timestamp);

    /**
     * Deletes the current key's event-time timer at {@code timestamp}; does nothing if there is none.
     *
     * @throws IllegalStateException if there is no current key
     */
    void deleteEventTimeTimer(long timestamp);

    /**
     * Deletes the current key's processing-time timer at {@code timestamp}; does nothing if there is none.
     *
     * @throws IllegalStateException if there is no current key
     */
    void deleteProcessingTimeTimer(long timestamp);
}
