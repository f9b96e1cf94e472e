package io.weir.runtime.time;

/**
 * Combines the watermarks and idle statuses of a task's input channels into the task's own (Flink's
 * {@code StatusWatermarkValve}, written for Weir):
 * <ul>
 * <li>the task's watermark is the minimum over its active, <em>aligned</em> channels, and only ever rises;</li>
 * <li>an idle channel is left out of the minimum; when all are idle the task is idle (and its watermark is
 *     raised to the largest channel watermark, so the windows they covered fire);</li>
 * <li>a channel that becomes active again counts only once its watermark reaches the task's (until then it is
 *     not aligned), so it cannot move the task's watermark backwards.</li>
 * </ul>
 * Task thread only. Allocation-free per event.
 */
public final class StatusWatermarkValve {
    /** Where changes of the combined watermark and status go. */
    public interface Output {
        /** The combined watermark rose to {@code watermark}. */
        void emitWatermark(long watermark) throws Exception;

        /** The task became idle ({@code true}) or active again ({@code false}). */
        void emitIdle(boolean idle) throws Exception;
    }

    /** Task thread only. */
    private final long[] watermarks;
    /** Task thread only. */
    private final boolean[] idle;
    /** Task thread only. */
    private final boolean[] aligned;
    private final Output output;
    /** Task thread only. */
    private long lastWatermark = Long.MIN_VALUE;
    /** Task thread only. */
    private boolean outputIdle;

    /** @param channels number of input channels, >= 1 */
    public StatusWatermarkValve(int channels, Output output) {
        if (channels < 1) {
            throw new IllegalArgumentException("a watermark valve needs at least one channel, got " + channels);
        }
        this.watermarks = new long[channels];
        this.idle = new boolean[channels];
        this.aligned = new boolean[channels];
        java.util.Arrays.fill(watermarks, Long.MIN_VALUE);
        java.util.Arrays.fill(aligned, true);
        this.output = output;
    }

    /** @return the combined watermark emitted last, {@link Long#MIN_VALUE} before the first */
    public long currentWatermark() {
        return lastWatermark;
    }

    /** @return whether every channel is idle */
    public boolean isIdle() {
        return outputIdle;
    }

    /** A watermark arrived on {@code channel}; a non-increasing one changes nothing. */
    public void inputWatermark(int channel, long watermark) throws Exception {
        if (idle[channel]) {
            // Flink ignores watermarks of idle channels; a producer sends ACTIVE before its next watermark
            return;
        }
        if (watermark <= watermarks[channel]) {
            return;
        }
        watermarks[channel] = watermark;
        if (!aligned[channel] && watermark >= lastWatermark) {
            aligned[channel] = true;
        }
        advanceToMinimum();
    }

    /** {@code channel} became idle or active again. */
    public void inputStatus(int channel, boolean becameIdle) throws Exception {
        if (becameIdle == idle[channel]) {
            return;
        }
        idle[channel] = becameIdle;
        if (becameIdle) {
            aligned[channel] = false;
            if (allIdle()) {
                long max = Long.MIN_VALUE;
                for (long w : watermarks) {
                    max = Math.max(max, w);
                }
                if (max > lastWatermark) {
                    lastWatermark = max;
                    output.emitWatermark(max);
                }
                outputIdle = true;
                output.emitIdle(true);
            } else {
                advanceToMinimum();
            }
        } else {
            aligned[channel] = watermarks[channel] >= lastWatermark;
            if (outputIdle) {
                outputIdle = false;
                output.emitIdle(false);
            }
        }
    }

    private boolean allIdle() {
        for (boolean i : idle) {
            if (!i) {
                return false;
            }
        }
        return true;
    }

    private void advanceToMinimum() throws Exception {
        long min = Long.MAX_VALUE;
        boolean any = false;
        for (int c = 0; c < watermarks.length; c++) {
            if (!idle[c] && aligned[c]) {
                min = Math.min(min, watermarks[c]);
                any = true;
            }
        }
        if (any && min > lastWatermark) {
            lastWatermark = min;
            output.emitWatermark(min);
        }
    }
}
