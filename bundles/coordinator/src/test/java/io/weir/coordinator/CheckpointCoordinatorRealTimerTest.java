package io.weir.coordinator;

import io.weir.coordinator.standalone.StandaloneCheckpointIDCounter;
import io.weir.coordinator.standalone.StandaloneCompletedCheckpointStore;
import io.weir.core.checkpoint.CheckpointFailureReason;
import io.weir.core.config.Configuration;
import io.weir.core.coordination.CheckpointCoordinatorContext;
import io.weir.core.coordination.CheckpointCoordinatorFactory;
import io.weir.core.coordination.CheckpointCoordinatorGateway;
import io.weir.core.coordination.OperatorInfo;
import io.weir.core.ha.CheckpointRecoveryFactory;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/** The coordinator on its real "checkpoint timer" thread, with tasks acking from that thread. */
class CheckpointCoordinatorRealTimerTest {

    @Test
    void periodicCheckpointsCarryOnAfterFailoverOnTheRealTimerThread() {
        FakeJob job = new FakeJob(0);
        Configuration config = new Configuration(Map.of("execution.checkpointing.interval", "20 ms",
                "execution.checkpointing.timeout", "1 min"));
        CheckpointCoordinatorContext ctx = new CheckpointCoordinatorContext("flight-delays", config,
                List.of(new OperatorInfo("src", 2, 128), new OperatorInfo("map", 2, 128)), job::gateways,
                job.storage, new StandaloneCheckpointIDCounter(), new StandaloneCompletedCheckpointStore("flight-delays", 1),
                List.of(), job.jobFailures::add, job.stats);
        CheckpointCoordinatorGateway coordinator = new DefaultCheckpointCoordinatorFactory().create(ctx);
        job.responder = coordinator;
        try {
            coordinator.startCheckpointScheduler();
            await().atMost(Duration.ofSeconds(5)).until(() -> job.stats.completed.size() >= 2);
            job.autoAck = false;
            // A checkpoint initialised after this point is triggered without auto-ack: it stays pending.
            int initsBefore = job.eventsStartingWith("init ").size();
            await().atMost(Duration.ofSeconds(5)).until(() -> job.eventsStartingWith("init ").size() > initsBefore);
            // Failover: the new attempt's tasks replace the old ones, then pending checkpoints are aborted.
            int completedBefore = job.stats.completed.size();
            job.restartAs(1);
            job.autoAck = true;
            coordinator.abortPendingCheckpoints(CheckpointFailureReason.JOB_SHUTTING_DOWN);
            await().atMost(Duration.ofSeconds(5)).until(() -> !job.stats.failed.isEmpty());
            await().atMost(Duration.ofSeconds(5)).until(() -> job.stats.completed.size() >= completedBefore + 2);
            assertThat(job.jobFailures).isEmpty();
        } finally {
            coordinator.shutdown();
        }
        await().atMost(Duration.ofSeconds(5)).until(() -> Thread.getAllStackTraces().keySet().stream()
                .noneMatch(t -> t.getName().equals("checkpoint timer (flight-delays)")));
    }

    @Test
    void factoriesAreFoundThroughServiceLoader() {
        assertThat(ServiceLoader.load(CheckpointCoordinatorFactory.class)).hasAtLeastOneElementOfType(
                DefaultCheckpointCoordinatorFactory.class);
        assertThat(ServiceLoader.load(CheckpointRecoveryFactory.class)).anyMatch(f -> f.type().equals("standalone"));
    }
}
