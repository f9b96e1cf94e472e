package io.weir.api.operator;

/** Which clock a timer is on. */
public enum TimeDomain {
    /** Fires when the operator's watermark reaches the timer's timestamp (ms since the epoch, event time). */
    EVENT_TIME,
    /** Fires when the task's wall clock ({@link System#currentTimeMillis()}) reaches the timer's timestamp. */
    PROCESSING_TIME
}
