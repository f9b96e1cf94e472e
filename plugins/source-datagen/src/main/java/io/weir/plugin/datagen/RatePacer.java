package io.weir.plugin.datagen;

/**
 * Spreads records evenly over time at a fixed rate without sleeping: it compares the records
 * emitted since an anchor with the time elapsed since then. If the caller falls more than one
 * second behind (e.g. under backpressure) the backlog is forgotten rather than emitted as a burst.
 *
 * <p>Not thread-safe: owned by one source subtask's task thread.
 */
final class RatePacer {
    private static final long SECOND_NANOS = 1_000_000_000L;

    /** Records per second; 0 = unlimited. */
    private final double rate;
    // Task thread only.
    private boolean anchored;
    private long anchorNanos;
    private long emittedSinceAnchor;

    /** @param rate records per second, 0 for unlimited */
    RatePacer(double rate) {
        if (!(rate >= 0)) {
            throw new IllegalArgumentException("rate must be >= 0, got " + rate);
        }
        this.rate = rate;
    }

    /**
     * @param nowNanos the current {@link System#nanoTime()}
     * @return how many records are due now (at least 0; {@link Long#MAX_VALUE} when unlimited). The
     *         first call anchors the schedule and allows one record at once.
     */
    long permits(long nowNanos) {
        if (rate == 0) {
            return Long.MAX_VALUE;
        }
        if (!anchored) {
            anchor(nowNanos);
        }
        long due = (long) Math.floor((nowNanos - anchorNanos) * rate / SECOND_NANOS) + 1 - emittedSinceAnchor;
        if (due > Math.max(1, rate)) {
            anchor(nowNanos);
            due = 1;
        }
        return Math.max(0, due);
    }

    /** Records that {@code n} records were emitted. */
    void emitted(long n) {
        emittedSinceAnchor += n;
    }

    /**
     * @param nowNanos the current {@link System#nanoTime()}
     * @return ns until the next record is due (0 if due already or unlimited)
     */
    long nanosUntilNext(long nowNanos) {
        if (rate == 0 || !anchored) {
            return 0;
        }
        long dueAt = anchorNanos + (long) Math.ceil(emittedSinceAnchor * SECOND_NANOS / rate);
        return Math.max(0, dueAt - nowNanos);
    }

    private void anchor(long nowNanos) {
        anchored = true;
        anchorNanos = nowNanos;
        emittedSinceAnchor = 0;
    }
}
