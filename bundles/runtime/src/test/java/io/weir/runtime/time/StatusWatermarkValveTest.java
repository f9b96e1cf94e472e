package io.weir.runtime.time;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class StatusWatermarkValveTest {
    private final List<String> out = new ArrayList<>();
    private final StatusWatermarkValve.Output recorder = new StatusWatermarkValve.Output() {
        @Override
        public void emitWatermark(long watermark) {
            out.add("wm " + watermark);
        }

        @Override
        public void emitIdle(boolean idle) {
            out.add(idle ? "idle" : "active");
        }
    };

    @Test
    void watermarkIsTheMinimumOverChannelsAndOnlyRises() throws Exception {
        StatusWatermarkValve valve = new StatusWatermarkValve(3, recorder);
        valve.inputWatermark(0, 10);
        valve.inputWatermark(1, 20);
        assertThat(out).isEmpty(); // channel 2 has none yet
        valve.inputWatermark(2, 5);
        valve.inputWatermark(2, 15);
        valve.inputWatermark(0, 30);
        valve.inputWatermark(0, 25); // backwards on one channel: ignored
        valve.inputWatermark(2, 40);
        assertThat(out).containsExactly("wm 5", "wm 10", "wm 15", "wm 20");
        assertThat(valve.currentWatermark()).isEqualTo(20);
    }

    @Test
    void idleChannelDoesNotHoldTheWatermarkBack() throws Exception {
        StatusWatermarkValve valve = new StatusWatermarkValve(2, recorder);
        valve.inputWatermark(0, 100);
        assertThat(out).isEmpty();
        valve.inputStatus(1, true);
        valve.inputWatermark(0, 200);
        assertThat(out).containsExactly("wm 100", "wm 200");
    }

    @Test
    void channelActiveAgainCountsOnlyOnceItCaughtUp() throws Exception {
        StatusWatermarkValve valve = new StatusWatermarkValve(2, recorder);
        valve.inputStatus(1, true);
        valve.inputWatermark(0, 100);
        valve.inputStatus(1, false);
        valve.inputWatermark(1, 50); // behind the task's watermark: not aligned, must not pull it back
        valve.inputWatermark(0, 150);
        assertThat(out).containsExactly("wm 100", "wm 150");
        valve.inputWatermark(1, 120); // still behind 150: not yet counted
        valve.inputWatermark(0, 200);
        assertThat(out).containsExactly("wm 100", "wm 150", "wm 200");
        valve.inputWatermark(1, 210); // caught up with 200: counts again
        valve.inputWatermark(0, 300); // now channel 1 is the minimum
        valve.inputWatermark(1, 250);
        assertThat(out).containsExactly("wm 100", "wm 150", "wm 200", "wm 210", "wm 250");
    }

    @Test
    void allChannelsIdleMakesTheTaskIdleAtTheLargestWatermark() throws Exception {
        StatusWatermarkValve valve = new StatusWatermarkValve(2, recorder);
        valve.inputWatermark(0, 10);
        valve.inputWatermark(1, 70);
        valve.inputStatus(0, true);
        valve.inputStatus(1, true);
        valve.inputStatus(1, false);
        assertThat(out).containsExactly("wm 10", "wm 70", "idle", "active");
        assertThat(valve.isIdle()).isFalse();
    }
}
