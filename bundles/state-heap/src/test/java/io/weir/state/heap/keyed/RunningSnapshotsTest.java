package io.weir.state.heap.keyed;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class RunningSnapshotsTest {
    @Test
    void requiredIsTheNewestRunningVersionAndFallsBackToAnOlderOneStillRunning() {
        RunningSnapshots running = new RunningSnapshots();
        assertThat(running.required()).isZero();
        running.start(3);
        running.start(5);
        assertThat(running.required()).isEqualTo(5);

        running.finish(5); // the newer writer ends first: the older one still needs version 3
        assertThat(running.required()).isEqualTo(3);
        running.finish(5);
        assertThat(running.required()).isEqualTo(3);
        running.finish(3);
        assertThat(running.required()).isZero();
    }

    @Test
    void aVersionNotAboveTheRunningOnesIsRejected() {
        RunningSnapshots running = new RunningSnapshots();
        running.start(4);

        assertThatThrownBy(() -> running.start(4)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("snapshot version 4");
        assertThatThrownBy(() -> new RunningSnapshots().start(0)).isInstanceOf(IllegalArgumentException.class);
    }
}
