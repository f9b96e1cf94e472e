package io.weir.benchmarks;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class SummaryStatisticsTest {
    @Test
    void spreadOfAnOddCountTakesTheMiddleValueAndRelatesTheRangeToIt() {
        Spread s = Spread.of(List.of(30, 10, 20, 50, 40));

        assertThat(s).isEqualTo(new Spread(5, 30, 10, 50, 133.3));
    }

    @Test
    void spreadOfAnEvenCountAveragesTheTwoMiddleValues() {
        assertThat(Spread.of(List.of(4, 1, 3, 2)).median()).isEqualTo(2.5);
    }

    @Test
    void nearestRankPercentilesAreMeasuredValues() {
        List<Integer> ms = new ArrayList<>();
        for (int i = 1; i <= 200; i++) {
            ms.add(201 - i); // 200 … 1
        }

        // rank ⌈0.5 × 200⌉ = 100 → 100; rank ⌈0.99 × 200⌉ = 198 → 198
        assertThat(Percentiles.of(ms)).isEqualTo(new Percentiles(200, 100, 198, 200));
        assertThat(Percentiles.of(List.of(7))).isEqualTo(new Percentiles(1, 7, 7, 7));
    }

    @Test
    void emptyMeasurementsAreRefused() {
        assertThatThrownBy(() -> Spread.of(List.of())).hasMessage("no measurements to summarise");
        assertThatThrownBy(() -> Percentiles.of(List.of())).hasMessage("no measurements to summarise");
    }
}
