package io.weir.core.barrier;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class InputChannelSetTest {
    @Test
    void endedChannelIsNoLongerLiveAndRejectsLaterEvents() {
        InputChannelSet channels = new InputChannelSet("sink (1/1)", 2);
        channels.markEnded(1);

        assertThat(channels.isLive(0)).isTrue();
        assertThat(channels.isLive(1)).isFalse();
        assertThat(channels.liveCount()).isEqualTo(1);
        assertThatThrownBy(() -> channels.requireLive(1, "barrier of checkpoint 3"))
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("task sink (1/1): barrier of checkpoint 3 on channel 1 after its end of partition");
        assertThatThrownBy(() -> channels.markEnded(1)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("delivered end of partition twice");
    }

    @Test
    void channelOutOfRangeIsRejectedNamingTheRange() {
        InputChannelSet channels = new InputChannelSet("t", 2);

        assertThatThrownBy(() -> channels.isLive(2)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("task t: channel 2 out of range [0, 2)");
        assertThatThrownBy(() -> channels.requireLive(-1, "x")).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void taskWithoutChannelsIsRejected() {
        assertThatThrownBy(() -> new InputChannelSet("t", 0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("at least one input channel");
    }
}
