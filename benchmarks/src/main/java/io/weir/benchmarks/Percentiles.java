package io.weir.benchmarks;

import java.util.Arrays;
import java.util.List;

/**
 * Latency percentiles by the nearest-rank method: the p-th percentile of n sorted values is the value at
 * rank ⌈p/100 × n⌉ (1-based), so it is always one of the measured values.
 *
 * @param count values, >= 1
 * @param p50 the median by nearest rank
 * @param p99 the 99th percentile by nearest rank
 * @param max the largest value
 */
public record Percentiles(int count, double p50, double p99, double max) {
    /** @throws IllegalArgumentException if {@code count < 1} or the values are not ordered p50 <= p99 <= max */
    public Percentiles {
        if (count < 1 || p50 > p99 || p99 > max) {
            throw new IllegalArgumentException("need count >= 1 and p50 <= p99 <= max, got " + count + ", " + p50 + ", " + p99 + ", " + max);
        }
    }

    /**
     * @param values the measurements, at least one
     * @return their percentiles
     * @throws IllegalArgumentException if {@code values} is empty
     */
    public static Percentiles of(List<? extends Number> values) {
        if (values.isEmpty()) {
            throw new IllegalArgumentException("no measurements to summarise");
        }
        double[] v = values.stream().mapToDouble(Number::doubleValue).toArray();
        Arrays.sort(v);
        return new Percentiles(v.length, rank(v, 50), rank(v, 99), v[v.length - 1]);
    }

    private static double rank(double[] sorted, int p) {
        int rank = (int) Math.ceil(p / 100.0 * sorted.length);
        return sorted[Math.max(rank, 1) - 1];
    }
}
