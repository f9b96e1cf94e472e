package io.weir.benchmarks;

/**
 * The row counter read at one instant.
 *
 * @param rows rows counted so far, >= 0
 * @param nanoTime {@link System#nanoTime()} when read
 */
public record CountSample(long rows, long nanoTime) {
    /** @throws IllegalArgumentException if {@code rows} is negative */
    public CountSample {
        if (rows < 0) {
            throw new IllegalArgumentException("rows must be >= 0, got " + rows);
        }
    }

    /**
     * @param later a sample taken after this one
     * @return rows per second between the two samples
     * @throws IllegalArgumentException if {@code later} is not strictly later or counts fewer rows
     */
    public double recordsPerSecondUntil(CountSample later) {
        long nanos = later.nanoTime - nanoTime;
        if (nanos <= 0) {
            throw new IllegalArgumentException("second sample must be later: " + this + " then " + later);
        }
        if (later.rows < rows) {
            throw new IllegalArgumentException("row counter went backwards: " + this + " then " + later);
        }
        return (later.rows - rows) * 1e9 / nanos;
    }
}
