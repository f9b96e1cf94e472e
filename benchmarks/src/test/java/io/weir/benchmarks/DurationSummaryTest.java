package io.weir.benchmarks;

import io.weir.core.coordination.CompletedCheckpointStats;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;
import java.util.OptionalDouble;
import java.util.OptionalLong;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

class DurationSummaryTest {
    @Test
    void firstCheckpointByIdIsExcludedEvenWhenItCompletedLast() {
        // completion order 3, 2, 1; checkpoint 1 is the slow warm-up one and must not count
        DurationSummary s = DurationSummary.afterFirst(List.of(stats(3, 30), stats(2, 10), stats(1, 5000)));

        assertThat(s.counted()).isEqualTo(2);
        assertThat(s.median()).isEqualTo(OptionalDouble.of(20.0));
        assertThat(s.max()).isEqualTo(OptionalLong.of(30));
    }

    @Test
    void medianOfOddCountIsTheMiddleValue() {
        DurationSummary s = DurationSummary.afterFirst(List.of(stats(1, 1), stats(2, 2705), stats(3, 3201), stats(4, 3136)));

        assertThat(s.median()).isEqualTo(OptionalDouble.of(3136.0));
        assertThat(s.max()).isEqualTo(OptionalLong.of(3201));
    }

    @Test
    void fewerThanTwoCheckpointsGiveNoDurations() {
        assertThat(DurationSummary.afterFirst(List.of(stats(1, 44))).counted()).isZero();
        assertThat(DurationSummary.afterFirst(List.of()).median()).isEmpty();
    }

    @Test
    void recordsPerSecondDividesCountedRowsByElapsedTime() {
        CountSample atWarmup = new CountSample(1_000, 10_000_000_000L);
        CountSample atEnd = new CountSample(21_000, 20_000_000_000L);

        assertThat(atWarmup.recordsPerSecondUntil(atEnd)).isCloseTo(2_000.0, within(1e-9));
        assertThatThrownBy(() -> atEnd.recordsPerSecondUntil(atWarmup)).isInstanceOf(IllegalArgumentException.class);
    }

    private static CompletedCheckpointStats stats(long id, long durationMs) {
        return new CompletedCheckpointStats(id, 0, durationMs, 0, 0, false, Map.of());
    }
}
