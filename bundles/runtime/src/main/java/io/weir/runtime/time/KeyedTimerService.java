package io.weir.runtime.time;

import io.weir.api.operator.TimeDomain;
import io.weir.api.operator.TimerService;
import io.weir.core.state.InternalTimer;
import io.weir.core.state.KeyedStateBackend;
import io.weir.core.state.KeyedTimerQueue;

/**
 * The {@link TimerService} of one keyed operator subtask (Flink's {@code InternalTimerServiceImpl}, written
 * for Weir): two timer queues kept by the keyed state backend ({@value #EVENT_TIMERS} and
 * {@value #PROCESSING_TIMERS}, so they are checkpointed and rescaled with the keyed state), the operator's
 * current watermark, and one pending processing-time wake-up for the earliest processing-time timer.
 *
 * <p>Task thread only (every field and method): timers fire from {@link #advanceWatermark} (called in the
 * mailbox step that handles the watermark) and from {@link #onProcessingTime} (a mail).
 */
public final class KeyedTimerService implements TimerService {
    /** Name of the event-time timer queue in keyed state (checkpoint format; do not change). */
    public static final String EVENT_TIMERS = "_timers/event";
    /** Name of the processing-time timer queue in keyed state (checkpoint format; do not change). */
    public static final String PROCESSING_TIMERS = "_timers/processing";

    private final KeyedStateBackend backend;
    private final KeyedTimerQueue eventTimers;
    private final KeyedTimerQueue processingTimers;
    private final ProcessingTimeScheduler clock;
    /** Task thread only. */
    private long currentWatermark = Long.MIN_VALUE;
    /** Timestamp of the pending wake-up, {@link Long#MAX_VALUE} if none. Task thread only. */
    private long wakeUpAt = Long.MAX_VALUE;

    /**
     * Creates the queues (loading restored timers) and schedules the wake-up for restored processing-time timers.
     *
     * @throws UnsupportedOperationException if the backend keeps no timers
     */
    public KeyedTimerService(KeyedStateBackend backend, ProcessingTimeScheduler clock) {
        this.backend = backend;
        this.eventTimers = backend.timerQueue(EVENT_TIMERS);
        this.processingTimers = backend.timerQueue(PROCESSING_TIMERS);
        this.clock = clock;
        scheduleNext();
    }

    @Override
    public long currentWatermark() {
        return currentWatermark;
    }

    @Override
    public long currentProcessingTime() {
        return clock.now();
    }

    @Override
    public void registerEventTimeTimer(long timestamp) {
        eventTimers.add(timestamp);
    }

    @Override
    public void registerProcessingTimeTimer(long timestamp) {
        if (processingTimers.add(timestamp) && timestamp < wakeUpAt) {
            wakeUpAt = timestamp;
            clock.wakeUpAt(timestamp);
        }
    }

    @Override
    public void deleteEventTimeTimer(long timestamp) {
        eventTimers.delete(timestamp);
    }

    @Override
    public void deleteProcessingTimeTimer(long timestamp) {
        processingTimers.delete(timestamp); // a wake-up for it finds nothing due and reschedules
    }

    /** @return timers pending in each domain: {event, processing} (metrics, tests) */
    public int[] pendingTimers() {
        return new int[] {eventTimers.size(), processingTimers.size()};
    }

    /**
     * Sets the watermark and fires, in timestamp order, every event-time timer {@code <= watermark}, each with
     * keyed state scoped to its key. A watermark not above the current one fires nothing.
     *
     * @throws Exception from the target; fails the task
     */
    public void advanceWatermark(long watermark, TimerTarget target) throws Exception {
        if (watermark <= currentWatermark) {
            return;
        }
        currentWatermark = watermark;
        InternalTimer t;
        while ((t = eventTimers.poll(watermark)) != null) {
            backend.setCurrentKey(t.key(), t.keyGroup());
            target.onTimer(t.timestamp(), t.key(), TimeDomain.EVENT_TIME);
        }
    }

    /**
     * The wake-up: fires every processing-time timer {@code <= now}, then asks for a wake-up at the next one.
     *
     * @throws Exception from the target; fails the task
     */
    public void onProcessingTime(long now, TimerTarget target) throws Exception {
        wakeUpAt = Long.MAX_VALUE;
        InternalTimer t;
        while ((t = processingTimers.poll(now)) != null) {
            backend.setCurrentKey(t.key(), t.keyGroup());
            target.onTimer(t.timestamp(), t.key(), TimeDomain.PROCESSING_TIME);
        }
        wakeUpAt = Long.MAX_VALUE; // a timer registered by a handler above may have asked for a wake-up already fired
        scheduleNext();
    }

    private void scheduleNext() {
        long next = processingTimers.peekTimestamp();
        if (next != Long.MAX_VALUE && next < wakeUpAt) {
            wakeUpAt = next;
            clock.wakeUpAt(next);
        }
    }

    /**
     * The timer service of a keyed operator whose state backend keeps no timers: every call throws
     * {@code UnsupportedOperationException} with {@code message} (naming the backend), so only an operator that
     * uses timers fails, and the keyed operators that do not (e.g. {@code keyed-aggregate}) run on that backend.
     *
     * @param message why there are no timers, from the backend
     * @return the throwing service
     */
    public static TimerService unsupported(String message) {
        return new TimerService() {
            @Override
            public long currentWatermark() {
                throw new UnsupportedOperationException(message);
            }

            @Override
            public long currentProcessingTime() {
                throw new UnsupportedOperationException(message);
            }

            @Override
            public void registerEventTimeTimer(long timestamp) {
                throw new UnsupportedOperationException(message);
            }

            @Override
            public void registerProcessingTimeTimer(long timestamp) {
                throw new UnsupportedOperationException(message);
            }

            @Override
            public void deleteEventTimeTimer(long timestamp) {
                throw new UnsupportedOperationException(message);
            }

            @Override
            public void deleteProcessingTimeTimer(long timestamp) {
                throw new UnsupportedOperationException(message);
            }
        };
    }

    /** Cancels the pending wake-up (task end). */
    public void close() {
        clock.cancel();
        wakeUpAt = Long.MAX_VALUE;
    }
}
