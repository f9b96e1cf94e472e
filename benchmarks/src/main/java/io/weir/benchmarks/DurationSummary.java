package io.weir.benchmarks;

import io.weir.core.coordination.CompletedCheckpointStats;

import java.util.Comparator;
import java.util.List;
import java.util.OptionalDouble;
import java.util.OptionalLong;

/**
 * End-to-end checkpoint durations over checkpoints 2..n: the first completed checkpoint (lowest id)
 * is excluded because it runs while the job warms up (PROTOCOL.md §5 shows it apart).
 *
 * @param counted how many checkpoints the median and maximum cover (completed − 1, or 0), >= 0
 * @param median median end-to-end duration in ms (mean of the two middle values for an even
 *        count); empty when {@code counted} is 0
 * @param max largest end-to-end duration in ms; empty when {@code counted} is 0
 */
public record DurationSummary(int counted, OptionalDouble median, OptionalLong max) {
    /** @throws IllegalArgumentException if the fields disagree with {@code counted} */
    public DurationSummary {
        if (counted < 0) {
            throw new IllegalArgumentException("counted must be >= 0, got " + counted);
        }
        if ((counted == 0) != median.isEmpty() || (counted == 0) != max.isEmpty()) {
            throw new IllegalArgumentException("median and max must be present exactly when counted > 0; counted="
                    + counted + ", median=" + median + ", max=" + max);
        }
    }

    /**
     * @param completed completed checkpoints in any order
     * @return the summary of all but the lowest checkpoint id
     */
    public static DurationSummary afterFirst(List<CompletedCheckpointStats> completed) {
        return afterFirst(completed, CompletedCheckpointStats::endToEndDurationMs);
    }

    /**
     * @param completed completed checkpoints in any order
     * @param metric what to summarize per checkpoint (e.g. persisted in-flight bytes)
     * @return median and max of {@code metric} over all but the lowest checkpoint id
     */
    public static DurationSummary afterFirst(List<CompletedCheckpointStats> completed,
            java.util.function.ToLongFunction<CompletedCheckpointStats> metric) {
        long[] durations = completed.stream()
                .sorted(Comparator.comparingLong(CompletedCheckpointStats::checkpointId))
                .skip(1)
                .mapToLong(metric)
                .sorted()
                .toArray();
        int n = durations.length;
        if (n == 0) {
            return new DurationSummary(0, OptionalDouble.empty(), OptionalLong.empty());
        }
        double median = n % 2 == 1 ? durations[n / 2] : (durations[n / 2 - 1] + durations[n / 2]) / 2.0;
        return new DurationSummary(n, OptionalDouble.of(median), OptionalLong.of(durations[n - 1]));
    }
}
