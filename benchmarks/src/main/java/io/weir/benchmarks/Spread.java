package io.weir.benchmarks;

import java.util.List;

/**
 * Median, min, max and spread of a benchmark's repeated measurements.
 *
 * @param count measurements, >= 1
 * @param median the middle value (mean of the two middle ones for an even count)
 * @param min the smallest
 * @param max the largest
 * @param spreadPercent (max − min) / median × 100; 0 when the median is 0
 */
public record Spread(int count, double median, double min, double max, double spreadPercent) {
    /** @throws IllegalArgumentException if {@code count < 1} or {@code min > median} or {@code median > max} */
    public Spread {
        if (count < 1 || min > median || median > max) {
            throw new IllegalArgumentException("need count >= 1 and min <= median <= max, got " + count + ", " + min
                    + ", " + median + ", " + max);
        }
    }

    /**
     * @param values the measurements, at least one
     * @return their spread
     * @throws IllegalArgumentException if {@code values} is empty
     */
    public static Spread of(List<? extends Number> values) {
        if (values.isEmpty()) {
            throw new IllegalArgumentException("no measurements to summarise");
        }
        double[] v = values.stream().mapToDouble(Number::doubleValue).sorted().toArray();
        int n = v.length;
        double median = n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
        double spread = median == 0 ? 0 : (v[n - 1] - v[0]) / median * 100;
        return new Spread(n, median, v[0], v[n - 1], Math.round(spread * 10) / 10.0);
    }

}
