package io.weir.runtime.time;

import io.weir.api.Row;
import io.weir.api.operator.Output;
import io.weir.api.time.TimestampExtractor;
import io.weir.core.config.WatermarkSettings;

/**
 * Watermarks of one source subtask with bounded out-of-orderness (Flink's
 * {@code BoundedOutOfOrdernessWatermarks} plus {@code WatermarksWithIdleness}, written for Weir):
 * <ul>
 * <li>per record ({@link #wrap}): the timestamp is read and the maximum kept — two plain field writes on the
 *     task thread, no allocation, no clock read;</li>
 * <li>periodically ({@link #onPeriodicEmit}, a mail every {@code pipeline.auto-watermark-interval}): emits
 *     {@code max timestamp - out-of-orderness - 1} if it rose;</li>
 * <li>idleness: when no record came during {@code watermark.idle-timeout} worth of periods, the subtask emits
 *     IDLE; with the next record it emits ACTIVE (at the next period, before that period's watermark).</li>
 * <li>at the end of input ({@link #onEndOfInput}) the watermark jumps to {@link Long#MAX_VALUE}, which fires all
 *     remaining event-time timers downstream.</li>
 * </ul>
 * Task thread only.
 */
public final class SourceWatermarkGenerator {
    /** Where the generator's decisions go (the source task). */
    public interface Emitter {
        /** Sends {@code watermark} through the chain and downstream. */
        void emitWatermark(long watermark) throws Exception;

        /** Sends the idle ({@code true}) or active status downstream. */
        void emitIdle(boolean idle) throws Exception;
    }

    private final TimestampExtractor extractor;
    private final long outOfOrdernessMs;
    private final long idleTimeoutMs;
    private final long intervalMs;
    /** Task thread only. */
    private long maxTimestamp = Long.MIN_VALUE;
    /** Task thread only. */
    private long records;
    /** Task thread only. */
    private long recordsAtLastPeriod;
    /** Task thread only. */
    private long quietMs;
    /** Task thread only. */
    private boolean idle;
    /** Task thread only. */
    private long lastEmitted = Long.MIN_VALUE;

    /**
     * @param settings the source's event-time settings
     * @param intervalMs the emission period, ms, >= 1
     */
    public SourceWatermarkGenerator(WatermarkSettings settings, long intervalMs) {
        this.extractor = settings.extractor();
        this.outOfOrdernessMs = settings.maxOutOfOrdernessMs();
        this.idleTimeoutMs = settings.idleTimeoutMs();
        this.intervalMs = intervalMs;
    }

    /**
     * @return an output that records each row's timestamp, then passes the row to {@code next}; it throws
     *         {@link IllegalArgumentException} naming the field for a row without a valid timestamp; it keeps no
     *         row itself, so it retains rows as {@code next} does
     */
    public Output wrap(Output next) {
        return new Output() {
            @Override
            public void collect(Row row) {
                long ts = extractor.extract(row);
                if (ts > maxTimestamp) {
                    maxTimestamp = ts;
                }
                records++;
                next.collect(row);
            }

            @Override
            public boolean retainsRows() {
                return next.retainsRows();
            }
        };
    }

    /** @return the largest timestamp seen, {@link Long#MIN_VALUE} before the first record */
    public long maxTimestamp() {
        return maxTimestamp;
    }

    /** One emission period passed. */
    public void onPeriodicEmit(Emitter emitter) throws Exception {
        if (records != recordsAtLastPeriod) {
            recordsAtLastPeriod = records;
            quietMs = 0;
            if (idle) {
                idle = false;
                emitter.emitIdle(false);
            }
        } else if (idleTimeoutMs > 0 && !idle) {
            quietMs += intervalMs;
            if (quietMs >= idleTimeoutMs) {
                idle = true;
                emitter.emitIdle(true);
            }
        }
        if (idle || maxTimestamp == Long.MIN_VALUE) {
            return;
        }
        long watermark = maxTimestamp - outOfOrdernessMs - 1;
        if (watermark > lastEmitted) {
            lastEmitted = watermark;
            emitter.emitWatermark(watermark);
        }
    }

    /** The input ended (or is drained): becomes active if idle and emits {@link Long#MAX_VALUE}. */
    public void onEndOfInput(Emitter emitter) throws Exception {
        if (idle) {
            idle = false;
            emitter.emitIdle(false);
        }
        if (lastEmitted < Long.MAX_VALUE) {
            lastEmitted = Long.MAX_VALUE;
            emitter.emitWatermark(Long.MAX_VALUE);
        }
    }
}
