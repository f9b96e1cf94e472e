package io.weir.coordinator;

import io.weir.coordinator.CheckpointRequestDecider.Decision;
import io.weir.coordinator.CheckpointRequestDecider.Reject;
import io.weir.coordinator.CheckpointRequestDecider.Trigger;
import io.weir.coordinator.CheckpointRequestDecider.Wait;
import io.weir.core.checkpoint.CheckpointFailureReason;
import io.weir.core.coordination.CheckpointTriggerKind;
import org.junit.jupiter.api.Test;

import java.util.concurrent.CompletableFuture;

import static org.assertj.core.api.Assertions.assertThat;

class CheckpointRequestDeciderTest {

    private static CheckpointRequest request(CheckpointTriggerKind kind) {
        return new CheckpointRequest(kind, 0, new CompletableFuture<>());
    }

    @Test
    void periodicRequestIsRejectedWhileMaxConcurrentCheckpointsArePending() {
        CheckpointRequestDecider decider = new CheckpointRequestDecider(2, 0, 4);
        assertThat(decider.submit(request(CheckpointTriggerKind.PERIODIC), 1, 100)).isInstanceOf(Trigger.class);
        Decision d = decider.submit(request(CheckpointTriggerKind.PERIODIC), 2, 100);
        assertThat(d).isInstanceOf(Reject.class);
        assertThat(((Reject) d).reason()).isEqualTo(CheckpointFailureReason.TOO_MANY_CHECKPOINT_REQUESTS);
        assertThat(decider.queuedCount()).isZero();
    }

    @Test
    void periodicRequestIsRejectedUntilMinPauseAfterLastCompletionIsOver() {
        CheckpointRequestDecider decider = new CheckpointRequestDecider(1, 500, 4);
        assertThat(decider.submit(request(CheckpointTriggerKind.PERIODIC), 0, 0)).as("no completion yet").isInstanceOf(Trigger.class);
        decider.checkpointCompleted(1_000);
        Decision d = decider.submit(request(CheckpointTriggerKind.PERIODIC), 0, 1_499);
        assertThat(((Reject) d).reason()).isEqualTo(CheckpointFailureReason.MINIMUM_TIME_BETWEEN_CHECKPOINTS);
        assertThat(decider.pauseEnd()).isEqualTo(1_500);
        assertThat(decider.submit(request(CheckpointTriggerKind.PERIODIC), 0, 1_500)).isInstanceOf(Trigger.class);
    }

    @Test
    void manualRequestWaitsForPendingCheckpointAndGoesOnPoll() {
        CheckpointRequestDecider decider = new CheckpointRequestDecider(1, 0, 4);
        CheckpointRequest manual = request(CheckpointTriggerKind.MANUAL);
        Decision d = decider.submit(manual, 1, 100);
        assertThat(d).isEqualTo(new Wait(CheckpointRequestDecider.ON_CHECKPOINT_FINISHED));
        assertThat(decider.poll(1, 200)).isInstanceOf(Wait.class);
        assertThat(decider.poll(0, 300)).isEqualTo(new Trigger(manual));
        assertThat(decider.queuedCount()).isZero();
    }

    @Test
    void queuedRequestWaitsForMinPauseWithRetryTime() {
        CheckpointRequestDecider decider = new CheckpointRequestDecider(1, 500, 4);
        decider.checkpointCompleted(1_000);
        CheckpointRequest fin = request(CheckpointTriggerKind.FINAL);
        assertThat(decider.submit(fin, 0, 1_100)).isEqualTo(new Wait(1_500));
        assertThat(decider.poll(0, 1_500)).isEqualTo(new Trigger(fin));
    }

    @Test
    void queuedRequestsGoBeforePeriodicOnesAndFullQueueRejects() {
        CheckpointRequestDecider decider = new CheckpointRequestDecider(1, 0, 2);
        decider.submit(request(CheckpointTriggerKind.MANUAL), 1, 0);
        decider.submit(request(CheckpointTriggerKind.FINAL), 1, 0);
        Decision third = decider.submit(request(CheckpointTriggerKind.MANUAL), 1, 0);
        assertThat(((Reject) third).reason()).isEqualTo(CheckpointFailureReason.TOO_MANY_CHECKPOINT_REQUESTS);
        Decision periodic = decider.submit(request(CheckpointTriggerKind.PERIODIC), 0, 0);
        assertThat(periodic).isInstanceOf(Reject.class);
        assertThat(((Trigger) decider.poll(0, 0)).request().kind()).isEqualTo(CheckpointTriggerKind.MANUAL);
        assertThat(((Trigger) decider.poll(0, 0)).request().kind()).isEqualTo(CheckpointTriggerKind.FINAL);
    }
}
