package io.weir.coordinator;

import io.weir.core.checkpoint.CheckpointFailureReason;
import io.weir.core.checkpoint.CheckpointOptions;
import io.weir.core.checkpoint.TaskId;
import io.weir.core.coordination.CheckpointTriggerKind;
import org.junit.jupiter.api.Test;

import java.util.concurrent.CompletableFuture;

import static org.assertj.core.api.Assertions.assertThat;

class AckRouterTest {
    private final FakeJob job = new FakeJob(0);
    private final PendingCheckpoints checkpoints = new PendingCheckpoints(4);
    private final AckRouter router = new AckRouter("flight-delays", checkpoints);

    private PendingCheckpoint triggered(long id) throws Exception {
        PendingCheckpoint p = new PendingCheckpoint(id, 1_000, new CheckpointRequest(CheckpointTriggerKind.MANUAL, 1_000,
                new CompletableFuture<>()), CheckpointPlan.calculate("flight-delays", job.gateways()), CheckpointOptions.aligned());
        p.transitionTo(PendingCheckpoint.State.TRIGGERED);
        checkpoints.add(p);
        return p;
    }

    private AckRouter.Route ack(TaskId task, long id) {
        return router.onAcknowledge(task, id, FakeJob.metrics(10), FakeJob.snapshotOf(task, 10));
    }

    @Test
    void lastAckOfEveryTaskRoutesToCompletion() throws Exception {
        PendingCheckpoint p = triggered(1);
        for (int i = 0; i < job.tasks.size() - 1; i++) {
            assertThat(ack(job.tasks.get(i).id, 1)).isInstanceOf(AckRouter.Ignore.class);
        }
        assertThat(ack(job.tasks.get(job.tasks.size() - 1).id, 1)).isEqualTo(new AckRouter.Complete(p));
        assertThat(p.acknowledgements()).hasSize(job.tasks.size());
    }

    @Test
    void lateAckForAbortedCheckpointRoutesToDiscardingItsState() throws Exception {
        triggered(1);
        checkpoints.removeAborted(1);
        assertThat(ack(job.task("src", 0).id, 1)).isEqualTo(new AckRouter.DiscardLateState(1));
    }

    @Test
    void ackForCompletedOrUnknownCheckpointIsIgnoredWithoutDiscarding() throws Exception {
        triggered(1);
        checkpoints.removeCompleted(1);
        assertThat(ack(job.task("src", 0).id, 1)).isInstanceOf(AckRouter.Ignore.class);
        assertThat(ack(job.task("src", 0).id, 99)).isInstanceOf(AckRouter.Ignore.class);
    }

    @Test
    void ackFromOldAttemptIsNotRecorded() throws Exception {
        PendingCheckpoint p = triggered(1);
        assertThat(ack(new TaskId("src", 0, 7), 1)).isInstanceOf(AckRouter.Ignore.class);
        assertThat(p.acknowledgements()).isEmpty();
    }

    @Test
    void countedDeclineAbortsAsDeclinedAndKeepsTheTasksReasonInTheCause() throws Exception {
        PendingCheckpoint p = triggered(1);
        TaskId task = job.task("map", 1).id;
        AckRouter.Route route = router.onDecline(task, 1, CheckpointFailureReason.IO_EXCEPTION, new IllegalStateException("disk"));
        assertThat(route).isInstanceOf(AckRouter.Abort.class);
        AckRouter.Abort abort = (AckRouter.Abort) route;
        assertThat(abort.checkpoint()).isSameAs(p);
        assertThat(abort.reason()).isEqualTo(CheckpointFailureReason.CHECKPOINT_DECLINED);
        assertThat(abort.cause().reason()).isEqualTo(CheckpointFailureReason.IO_EXCEPTION);
        assertThat(abort.cause()).hasMessageContaining(task.toString()).hasMessageContaining("checkpoint 1");
    }

    @Test
    void notCountedDeclineKeepsItsReasonSoItStaysUncounted() throws Exception {
        triggered(1);
        AckRouter.Route route = router.onDecline(job.task("src", 0).id, 1,
                CheckpointFailureReason.TASK_NOT_READY, null);
        assertThat(((AckRouter.Abort) route).reason()).isEqualTo(CheckpointFailureReason.TASK_NOT_READY);
    }

    @Test
    void declineFromTaskNotInThePlanOrForFinishedCheckpointIsIgnored() throws Exception {
        triggered(1);
        assertThat(router.onDecline(new TaskId("src", 0, 7), 1, null, null)).isInstanceOf(AckRouter.Ignore.class);
        checkpoints.removeAborted(1);
        assertThat(router.onDecline(job.task("src", 0).id, 1, null, null)).isInstanceOf(AckRouter.Ignore.class);
    }
}
