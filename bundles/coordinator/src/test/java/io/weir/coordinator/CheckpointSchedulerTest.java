package io.weir.coordinator;

import io.weir.core.checkpoint.CheckpointException;
import io.weir.core.checkpoint.CheckpointFailureReason;
import io.weir.core.checkpoint.CompletedCheckpoint;
import io.weir.core.coordination.CheckpointTriggerKind;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import static org.assertj.core.api.Assertions.assertThat;

class CheckpointSchedulerTest {
    private static final long T0 = 1_000_000;
    private static final long INTERVAL = 1_000;
    private static final long MIN_PAUSE = 300;

    private final ManualCheckpointTimer timer = new ManualCheckpointTimer(T0);
    private final List<CheckpointRequest> triggered = new ArrayList<>();
    private int pending;
    private final CheckpointScheduler scheduler = new CheckpointScheduler("flight-delays", INTERVAL,
            new GuardedTimer(timer, "flight-delays"), new CheckpointRequestDecider(1, MIN_PAUSE, 2),
            () -> pending, triggered::add);

    private List<Long> triggerTimes() {
        return triggered.stream().map(CheckpointRequest::requestTimestamp).toList();
    }

    private CheckpointRequest manual() {
        return new CheckpointRequest(CheckpointTriggerKind.MANUAL, timer.now(), new CompletableFuture<>());
    }

    @Test
    void periodicTicksTriggerEveryInterval() {
        scheduler.start();
        timer.advance(3 * INTERVAL);
        assertThat(triggerTimes()).containsExactly(T0 + INTERVAL, T0 + 2 * INTERVAL, T0 + 3 * INTERVAL);
    }

    @Test
    void periodicTickInsideMinPauseIsRetriedWhenThePauseEnds() {
        scheduler.start();
        timer.advance(INTERVAL - 100);
        scheduler.checkpointCompleted(timer.now());
        timer.advance(MIN_PAUSE);
        assertThat(triggerTimes()).containsExactly(T0 + INTERVAL - 100 + MIN_PAUSE);
    }

    @Test
    void stoppedSchedulerTriggersNothingAndStartsAfreshOnRestart() {
        scheduler.start();
        scheduler.stop();
        timer.advance(5 * INTERVAL);
        assertThat(triggered).isEmpty();
        scheduler.start();
        scheduler.start();
        timer.advance(INTERVAL);
        assertThat(triggerTimes()).containsExactly(T0 + 6 * INTERVAL);
    }

    @Test
    void manualRequestQueuedForMinPauseGoesWhenThePauseEnds() {
        scheduler.checkpointCompleted(T0);
        CheckpointRequest request = manual();
        scheduler.submit(request);
        assertThat(triggered).isEmpty();
        timer.advance(MIN_PAUSE - 1);
        assertThat(triggered).isEmpty();
        timer.advance(1);
        assertThat(triggered).containsExactly(request);
    }

    @Test
    void manualRequestQueuedBehindPendingCheckpointGoesOnPollAfterItFinished() {
        pending = 1;
        CheckpointRequest request = manual();
        scheduler.submit(request);
        scheduler.pollQueue();
        assertThat(triggered).isEmpty();
        pending = 0;
        scheduler.pollQueue();
        assertThat(triggered).containsExactly(request);
    }

    @Test
    void requestBeyondAFullQueueIsRejectedWithTooManyRequests() {
        pending = 1;
        scheduler.submit(manual());
        scheduler.submit(manual());
        CheckpointRequest third = manual();
        scheduler.submit(third);
        assertThat(third.result()).isCompletedExceptionally();
        Throwable error = third.result().handle((CompletedCheckpoint v, Throwable e) -> e).join();
        assertThat(error).isInstanceOf(CheckpointException.class);
        assertThat(((CheckpointException) error).reason()).isEqualTo(CheckpointFailureReason.TOO_MANY_CHECKPOINT_REQUESTS);
        assertThat(scheduler.drainQueue()).hasSize(2);
    }
}
