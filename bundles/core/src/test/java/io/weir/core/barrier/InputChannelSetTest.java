package io.weir.core.barrier;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class InputChannelSetTest {

    @Test
    void channelOutOfRangeIsRejectedNamingTheRange() {
        InputChannelSet channels = new InputChannelSet("t", 2);

        assertThatThrownBy(() -> channels.checkIndex(2)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("task t: channel 2 out of range [0, 2)");
        assertThatThrownBy(() -> channels.checkIndex(-1)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void taskWithoutChannelsIsRejected() {
        assertThatThrownBy(() -> new InputChannelSet("t", 0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("at least one input channel");
    }
}
