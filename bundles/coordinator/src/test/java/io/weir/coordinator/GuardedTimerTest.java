package io.weir.coordinator;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class GuardedTimerTest {
    private final ManualCheckpointTimer timer = new ManualCheckpointTimer(0);
    private final GuardedTimer guarded = new GuardedTimer(timer, "flight-delays");
    private final List<String> ran = new ArrayList<>();

    @Test
    void failingTaskDoesNotStopTheTasksAfterIt() {
        assertThat(guarded.execute("failing", () -> {
            throw new IllegalStateException("bug");
        })).isTrue();
        guarded.schedule("failing later", () -> {
            throw new AssertionError("bug");
        }, 5);
        guarded.execute("next", () -> ran.add("next"));
        guarded.schedule("later", () -> ran.add("later"), 10);
        timer.advance(10);
        assertThat(ran).containsExactly("next", "later");
    }

    @Test
    void shutDownRefusesWorkAndIsMarkedOnce() {
        assertThat(guarded.markShutDown()).isTrue();
        assertThat(guarded.markShutDown()).isFalse();
        assertThat(guarded.isShutDown()).isTrue();
        assertThat(guarded.execute("after shutdown", () -> ran.add("ran"))).isFalse();
        timer.runPending();
        assertThat(ran).isEmpty();
    }

    @Test
    void stoppedTimerRefusesWorkWithoutThrowing() {
        timer.shutdown();
        assertThat(guarded.execute("after timer stop", () -> ran.add("ran"))).isFalse();
    }
}
