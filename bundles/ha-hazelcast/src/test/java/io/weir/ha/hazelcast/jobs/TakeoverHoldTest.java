package io.weir.ha.hazelcast.jobs;

import org.junit.jupiter.api.Test;

import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class TakeoverHoldTest {
    private final AtomicLong now = new AtomicLong(10_000);
    private final TakeoverHold hold = new TakeoverHold(now::get, 1_000, 4_000);

    @Test
    void nothingIsHeldUntilAGapLongerThanTheMaximumIsSeen() {
        assertThat(hold.held()).isFalse();
        assertThat(hold.sawGap(1_000)).as("exactly the maximum").isFalse();
        assertThat(hold.held()).isFalse();
    }

    @Test
    void aPauseHoldsTakeoversForTheHoldDurationFromWhenItWasSeen() {
        now.set(15_700); // woke from a 5.7 s pause
        assertThat(hold.sawGap(5_700)).isTrue();
        now.set(19_699);
        assertThat(hold.held()).isTrue();
        now.set(19_700);
        assertThat(hold.held()).isFalse();
    }

    @Test
    void aLaterStartExtendsTheHoldAndAnEarlierOneDoesNotShortenIt() {
        hold.start(); // until 14_000
        now.set(12_000);
        hold.start(); // until 16_000
        now.set(15_999);
        assertThat(hold.held()).isTrue();
        now.set(16_000);
        assertThat(hold.held()).isFalse();
    }

    @Test
    void durationsMustBePositive() {
        assertThatThrownBy(() -> new TakeoverHold(now::get, 0, 1)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("must be > 0 ns");
    }
}
