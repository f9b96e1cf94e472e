package io.weir.coordinator;

import io.weir.coordinator.standalone.StandaloneCheckpointIDCounter;
import io.weir.coordinator.standalone.StandaloneCompletedCheckpointStore;
import io.weir.core.checkpoint.CheckpointAlignment;
import io.weir.core.checkpoint.CheckpointException;
import io.weir.core.checkpoint.CheckpointFailureReason;
import io.weir.core.checkpoint.CheckpointMetadata;
import io.weir.core.checkpoint.CompletedCheckpoint;
import io.weir.core.checkpoint.MasterState;
import io.weir.core.checkpoint.TaskId;
import io.weir.core.config.Configuration;
import io.weir.core.coordination.CheckpointCoordinatorContext;
import io.weir.core.coordination.CheckpointTriggerKind;
import io.weir.core.coordination.MasterHook;
import io.weir.core.coordination.OperatorInfo;
import io.weir.core.state.KeyHashVersion;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

class CheckpointCoordinatorTest {
    private static final long T0 = 1_000_000;

    private final ManualCheckpointTimer timer = new ManualCheckpointTimer(T0);
    private final FakeJob job = new FakeJob(0);
    private final StandaloneCheckpointIDCounter counter = new StandaloneCheckpointIDCounter();
    private final List<MasterHook> hooks = new ArrayList<>();
    private StandaloneCompletedCheckpointStore store;
    private CheckpointCoordinator coordinator;

    private CheckpointCoordinator start(Map<String, Object> options) {
        return start(options, s -> s);
    }

    /** @param storeSeen what the coordinator is given instead of {@link #store} (a wrapper of it) */
    private CheckpointCoordinator start(Map<String, Object> options,
            java.util.function.UnaryOperator<io.weir.core.ha.CompletedCheckpointStore> storeSeen) {
        Map<String, Object> all = new HashMap<>(Map.of("execution.checkpointing.timeout", "10 s"));
        all.putAll(options);
        Configuration config = new Configuration(all);
        store = new StandaloneCompletedCheckpointStore("flight-delays", config.get(io.weir.core.config.CheckpointingOptions.NUM_RETAINED));
        CheckpointCoordinatorContext ctx = new CheckpointCoordinatorContext("flight-delays", config,
                List.of(new OperatorInfo("src", 2, 128), new OperatorInfo("map", 2, 128)), job::gateways,
                job.storage, counter, storeSeen.apply(store), hooks, job.jobFailures::add, job.stats);
        coordinator = new CheckpointCoordinator(ctx, timer);
        job.responder = coordinator;
        return coordinator;
    }

    private java.util.Optional<CompletedCheckpoint> restore() {
        CompletableFuture<java.util.Optional<CompletedCheckpoint>> f =
                coordinator.restoreLatestCheckpoint(CheckpointFailureReason.JOB_SHUTTING_DOWN);
        timer.runPending();
        return f.join();
    }

    private CompletableFuture<CompletedCheckpoint> trigger(CheckpointTriggerKind kind) {
        CompletableFuture<CompletedCheckpoint> f = coordinator.triggerCheckpoint(kind);
        timer.runPending();
        return f;
    }

    /** A master hook whose state for checkpoint n is {@code trigger.apply(n)}; restoring does nothing. */
    private static MasterHook hook(String id, java.util.function.LongFunction<CompletableFuture<byte[]>> trigger) {
        return new MasterHook() {
            @Override
            public String id() {
                return id;
            }

            @Override
            public CompletableFuture<byte[]> triggerCheckpoint(long checkpointId, long timestamp) {
                return trigger.apply(checkpointId);
            }

            @Override
            public void restoreCheckpoint(long checkpointId, byte[] state) {
            }
        };
    }

    private static CheckpointFailureReason reasonOf(CompletableFuture<?> f) {
        assertThat(f).isCompletedExceptionally();
        Throwable t = f.handle((v, e) -> e).join();
        assertThat(t).isInstanceOf(CheckpointException.class);
        return ((CheckpointException) t).reason();
    }

    // ------------------------------------------------------------------ decider options

    @Test
    void intervalTriggersCheckpointsPeriodically() {
        start(Map.of("execution.checkpointing.interval", 100));
        coordinator.startCheckpointScheduler();
        timer.advance(99);
        assertThat(job.stats.completedIds()).isEmpty();
        timer.advance(1);
        assertThat(job.stats.completedIds()).containsExactly(1L);
        timer.advance(200);
        assertThat(job.stats.completedIds()).containsExactly(1L, 2L, 3L);
        coordinator.stopCheckpointScheduler();
        timer.advance(1000);
        assertThat(job.stats.completedIds()).containsExactly(1L, 2L, 3L);
    }

    @Test
    void timeoutExpiresPendingCheckpointAndNotifiesAborted() {
        start(Map.of("execution.checkpointing.timeout", 50, "execution.checkpointing.tolerable-failed-checkpoints", 5));
        job.autoAck = false;
        CompletableFuture<CompletedCheckpoint> f = trigger(CheckpointTriggerKind.MANUAL);
        timer.advance(49);
        assertThat(f).isNotDone();
        timer.advance(1);
        assertThat(reasonOf(f)).isEqualTo(CheckpointFailureReason.CHECKPOINT_EXPIRED);
        assertThat(job.eventsStartingWith("abort ")).containsExactlyInAnyOrder("abort src#0 1", "abort src#1 1",
                "abort map#0 1", "abort map#1 1");
        assertThat(job.events).contains("discard 1");
        assertThat(job.stats.failed).containsExactly("1 CHECKPOINT_EXPIRED");
    }

    @Test
    void maxConcurrentOneDropsPeriodicTriggerWhileOneIsPending() {
        start(Map.of("execution.checkpointing.interval", 10));
        job.autoAck = false;
        coordinator.startCheckpointScheduler();
        timer.advance(50);
        assertThat(job.eventsStartingWith("init ")).containsExactly("init 1");
        assertThat(counter.get()).isEqualTo(2);
        assertThat(job.jobFailures).isEmpty();
    }

    @Test
    void maxConcurrentTwoAllowsTwoPendingCheckpoints() {
        start(Map.of("execution.checkpointing.interval", 10, "execution.checkpointing.max-concurrent-checkpoints", 2));
        job.autoAck = false;
        coordinator.startCheckpointScheduler();
        timer.advance(50);
        assertThat(job.eventsStartingWith("init ")).containsExactly("init 1", "init 2");
        job.ackAll(1);
        timer.runPending();
        assertThat(job.stats.completedIds()).containsExactly(1L);
        timer.advance(10);
        assertThat(job.eventsStartingWith("init ")).containsExactly("init 1", "init 2", "init 3");
    }

    @Test
    void minPauseDelaysNextTriggerAfterCompletion() {
        start(Map.of("execution.checkpointing.interval", 100, "execution.checkpointing.min-pause", 250));
        coordinator.startCheckpointScheduler();
        timer.advance(100); // checkpoint 1 at T0+100, completes at once
        timer.advance(249);
        assertThat(job.stats.completedIds()).containsExactly(1L);
        timer.advance(1); // the pause ends at T0+350
        assertThat(job.stats.completedIds()).containsExactly(1L, 2L);
        assertThat(job.task("src", 0).triggerTimestamps).containsExactly(T0 + 100, T0 + 350);
    }

    @Test
    void tolerableZeroFailsJobAtFirstCountedFailure() {
        start(Map.of());
        job.autoAck = false;
        trigger(CheckpointTriggerKind.MANUAL);
        coordinator.declineCheckpoint(job.task("map", 1).id, 1, CheckpointFailureReason.IO_EXCEPTION,
                new java.io.IOException("disk full"));
        timer.runPending();
        assertThat(job.jobFailures).hasSize(1);
        assertThat(job.jobFailures.get(0)).hasMessageStartingWith("Exceeded checkpoint tolerable failure threshold.");
    }

    @Test
    void tolerableTwoFailsJobAtThirdConsecutiveFailureAndCompletionResetsTheCount() {
        start(Map.of("execution.checkpointing.tolerable-failed-checkpoints", 2));
        job.autoAck = false;
        for (long id = 1; id <= 2; id++) {
            trigger(CheckpointTriggerKind.MANUAL);
            coordinator.declineCheckpoint(job.task("src", 0).id, id, CheckpointFailureReason.CHECKPOINT_DECLINED, null);
            timer.runPending();
        }
        assertThat(job.jobFailures).isEmpty();
        trigger(CheckpointTriggerKind.MANUAL);
        job.ackAll(3);
        timer.runPending();
        assertThat(job.stats.completedIds()).containsExactly(3L);
        for (long id = 4; id <= 6; id++) {
            trigger(CheckpointTriggerKind.MANUAL);
            coordinator.declineCheckpoint(job.task("src", 0).id, id, CheckpointFailureReason.CHECKPOINT_DECLINED, null);
            timer.runPending();
            assertThat(job.jobFailures).hasSize(id < 6 ? 0 : 1);
        }
    }

    @Test
    void numRetainedKeepsNewestCheckpointsAndDiscardsOlderOnesThroughStorage() throws Exception {
        start(Map.of("execution.checkpointing.num-retained", 2));
        for (int i = 0; i < 3; i++) {
            assertThat(trigger(CheckpointTriggerKind.MANUAL)).isCompleted();
        }
        assertThat(store.getAllCheckpoints()).extracting(CompletedCheckpoint::checkpointId).containsExactly(2L, 3L);
        assertThat(job.eventsStartingWith("discard ")).containsExactly("discard 1");
    }

    @Test
    void checkpointOptionsFollowConfiguration() {
        start(Map.of("execution.checkpointing.unaligned.enabled", true));
        trigger(CheckpointTriggerKind.MANUAL);
        assertThat(job.task("src", 0).triggerOptions.get(0).alignment()).isEqualTo(CheckpointAlignment.UNALIGNED);
    }

    // ------------------------------------------------------------------ plan

    @Test
    void onlySourcesAreTriggeredAndEveryTaskIsWaitedFor() {
        start(Map.of());
        job.autoAck = false;
        CompletableFuture<CompletedCheckpoint> f = trigger(CheckpointTriggerKind.MANUAL);
        assertThat(job.eventsStartingWith("trigger ")).containsExactly("trigger src#0 1", "trigger src#1 1");
        job.ack(job.task("src", 0).id, 1);
        job.ack(job.task("src", 1).id, 1);
        job.ack(job.task("map", 0).id, 1);
        timer.runPending();
        assertThat(f).isNotDone();
        job.ack(job.task("map", 1).id, 1);
        timer.runPending();
        assertThat(f).isCompleted();
        assertThat(job.eventsStartingWith("complete ")).containsExactlyInAnyOrder("complete src#0 1",
                "complete src#1 1", "complete map#0 1", "complete map#1 1");
    }

    @Test
    void taskNotRunningFailsTheTriggerWithoutCountingIt() {
        start(Map.of());
        job.task("map", 1).running = false;
        CompletableFuture<CompletedCheckpoint> f = trigger(CheckpointTriggerKind.MANUAL);
        assertThat(reasonOf(f)).isEqualTo(CheckpointFailureReason.NOT_ALL_REQUIRED_TASKS_RUNNING);
        assertThat(job.jobFailures).isEmpty();
        assertThat(counter.get()).as("no id was taken").isEqualTo(1);
        assertThat(job.events).isEmpty();
    }

    // ------------------------------------------------------------------ declines and acks

    @Test
    void declineAbortsNotifiesEveryTaskDiscardsAndCounts() {
        start(Map.of("execution.checkpointing.tolerable-failed-checkpoints", 1));
        job.autoAck = false;
        CompletableFuture<CompletedCheckpoint> f = trigger(CheckpointTriggerKind.MANUAL);
        coordinator.declineCheckpoint(job.task("map", 0).id, 1, CheckpointFailureReason.IO_EXCEPTION,
                new java.io.IOException("disk full"));
        timer.runPending();
        assertThat(reasonOf(f)).isEqualTo(CheckpointFailureReason.CHECKPOINT_DECLINED);
        assertThat(job.eventsStartingWith("abort ")).hasSize(4);
        assertThat(job.events).contains("discard 1");
        assertThat(job.stats.failed).containsExactly("1 CHECKPOINT_DECLINED");
        assertThat(job.jobFailures).isEmpty();
        trigger(CheckpointTriggerKind.MANUAL);
        coordinator.declineCheckpoint(job.task("map", 0).id, 2, CheckpointFailureReason.CHECKPOINT_DECLINED, null);
        timer.runPending();
        assertThat(job.jobFailures).as("second counted failure exceeds tolerance 1").hasSize(1);
    }

    @Test
    void declineForTaskNotReadyIsNotCounted() {
        start(Map.of());
        job.autoAck = false;
        CompletableFuture<CompletedCheckpoint> f = trigger(CheckpointTriggerKind.MANUAL);
        coordinator.declineCheckpoint(job.task("src", 0).id, 1, CheckpointFailureReason.TASK_NOT_READY, null);
        timer.runPending();
        assertThat(reasonOf(f)).isEqualTo(CheckpointFailureReason.TASK_NOT_READY);
        assertThat(job.jobFailures).isEmpty();
    }

    @Test
    void lateAckForExpiredCheckpointIsIgnoredAndItsStateDiscarded() {
        start(Map.of("execution.checkpointing.timeout", 50, "execution.checkpointing.tolerable-failed-checkpoints", 5));
        job.autoAck = false;
        trigger(CheckpointTriggerKind.MANUAL);
        timer.advance(50);
        job.events.clear();
        job.ackAll(1);
        timer.runPending();
        assertThat(job.events).containsOnly("discard 1");
        assertThat(job.stats.completedIds()).isEmpty();
        job.autoAck = true;
        assertThat(trigger(CheckpointTriggerKind.MANUAL)).isCompleted();
        assertThat(job.stats.completedIds()).containsExactly(2L);
    }

    @Test
    void ackFromOldAttemptIsIgnored() {
        start(Map.of());
        job.autoAck = false;
        job.restartAs(1);
        CompletableFuture<CompletedCheckpoint> f = trigger(CheckpointTriggerKind.MANUAL);
        for (FakeJob.FakeTask t : job.tasks) {
            job.ack(new TaskId(t.id.vertexId(), t.id.subtaskIndex(), 0), 1);
        }
        timer.runPending();
        assertThat(f).isNotDone();
        job.ackAll(1);
        timer.runPending();
        assertThat(f).isCompleted();
    }

    @Test
    void duplicateAckIsIgnored() {
        start(Map.of());
        job.autoAck = false;
        CompletableFuture<CompletedCheckpoint> f = trigger(CheckpointTriggerKind.MANUAL);
        for (int i = 0; i < 4; i++) {
            job.ack(job.task("src", 0).id, 1);
        }
        timer.runPending();
        assertThat(f).isNotDone();
    }

    @Test
    void ackForUnknownCheckpointIsLoggedNotThrown() {
        start(Map.of());
        assertThatCode(() -> {
            job.ack(job.task("src", 0).id, 99);
            coordinator.declineCheckpoint(job.task("src", 0).id, 98, CheckpointFailureReason.CHECKPOINT_DECLINED, null);
            timer.runPending();
        }).doesNotThrowAnyException();
        assertThat(job.events).isEmpty();
        assertThat(trigger(CheckpointTriggerKind.MANUAL)).isCompleted();
    }

    // ------------------------------------------------------------------ completion

    @Test
    void metadataIsFinalizedBeforeTasksAreNotifiedAndHoldsEveryOperator() {
        start(Map.of());
        CompletableFuture<CompletedCheckpoint> f = trigger(CheckpointTriggerKind.MANUAL);
        int finalize = job.events.indexOf("finalize 1");
        assertThat(finalize).isGreaterThanOrEqualTo(0);
        assertThat(job.events.subList(0, finalize)).noneMatch(e -> e.startsWith("complete "));
        assertThat(job.eventsStartingWith("complete ")).hasSize(4);

        CheckpointMetadata metadata = f.join().metadata();
        assertThat(metadata.operatorStates()).containsOnlyKeys("src", "map");
        assertThat(metadata.operatorStates().get("map").parallelism()).isEqualTo(2);
        assertThat(metadata.operatorStates().get("map").maxParallelism()).isEqualTo(128);
        assertThat(metadata.operatorStates().get("map").subtaskStates()).containsOnlyKeys(0, 1);
        assertThat(metadata.stateSize()).isEqualTo(400);
        assertThat(f.join().externalPointer()).isEqualTo("mem://chk-1");

        var stats = job.stats.completed.get(0);
        assertThat(stats.checkpointedSizeBytes()).isEqualTo(400);
        assertThat(stats.subtasks()).hasSize(4);
        assertThat(stats.endToEndDurationMs()).isZero();
    }

    @Test
    void completionNotificationReachesEveryTaskEvenIfOneThrows() {
        start(Map.of());
        job.task("src", 0).failOnNotifyComplete = true;
        CompletableFuture<CompletedCheckpoint> f = trigger(CheckpointTriggerKind.MANUAL);
        assertThat(f).isCompleted();
        assertThat(job.eventsStartingWith("complete ")).containsExactlyInAnyOrder("complete src#0 1",
                "complete src#1 1", "complete map#0 1", "complete map#1 1");
    }

    @Test
    void finalizeFailureIsCountedDiscardedAndNotifiedAsAborted() throws Exception {
        start(Map.of());
        job.storage.failFinalize = true;
        CompletableFuture<CompletedCheckpoint> f = trigger(CheckpointTriggerKind.MANUAL);
        assertThat(reasonOf(f)).isEqualTo(CheckpointFailureReason.IO_EXCEPTION);
        assertThat(job.events).contains("discard 1");
        assertThat(job.eventsStartingWith("abort ")).hasSize(4);
        assertThat(job.eventsStartingWith("complete ")).isEmpty();
        assertThat(store.getLatestCheckpoint()).isEmpty();
        assertThat(job.jobFailures).hasSize(1);
    }

    /**
     * A fenced former owner whose ADD may have been applied before the new owner claimed the store (issue 9): the new
     * owner may restore from that checkpoint, so this run must neither commit it nor delete its files.
     */
    @Test
    void aCheckpointTheStoreMayHoldIsAbortedWithoutCommittingOrDiscardingItsFiles() {
        start(Map.of("execution.checkpointing.tolerable-failed-checkpoints", 5), s -> new io.weir.core.ha.CompletedCheckpointStore() {
            @Override
            public void addCheckpointAndSubsumeOldest(CompletedCheckpoint checkpoint,
                    java.util.function.Consumer<CompletedCheckpoint> onSubsumed) {
                throw new io.weir.core.ha.CheckpointPossiblyStoredException("job flight-delays: checkpoint "
                        + checkpoint.checkpointId() + " reached the store, which a newer owner claimed", null);
            }

            @Override
            public java.util.Optional<CompletedCheckpoint> getLatestCheckpoint() {
                return java.util.Optional.empty();
            }

            @Override
            public List<CompletedCheckpoint> getAllCheckpoints() {
                return List.of();
            }

            @Override
            public int getMaxNumberOfRetainedCheckpoints() {
                return 1;
            }
        });
        CompletableFuture<CompletedCheckpoint> f = trigger(CheckpointTriggerKind.MANUAL);
        assertThat(reasonOf(f)).isEqualTo(CheckpointFailureReason.FINALIZE_CHECKPOINT_FAILURE);
        assertThat(job.eventsStartingWith("discard")).as("files another owner may restore from").isEmpty();
        assertThat(job.eventsStartingWith("complete ")).isEmpty();
        assertThat(job.eventsStartingWith("abort ")).hasSize(4);
    }

    // ------------------------------------------------------------------ failure modes

    @Test
    void periodicCheckpointsCarryOnAfterFailover() {
        start(Map.of("execution.checkpointing.interval", 100));
        job.autoAck = false;
        coordinator.startCheckpointScheduler();
        timer.advance(100);
        assertThat(job.triggerCount(1)).isEqualTo(2);
        coordinator.abortPendingCheckpoints(CheckpointFailureReason.JOB_SHUTTING_DOWN);
        job.restartAs(1);
        job.autoAck = true;
        timer.advance(300);
        assertThat(job.jobFailures).as("JOB_SHUTTING_DOWN is not counted").isEmpty();
        assertThat(job.stats.failed).containsExactly("1 JOB_SHUTTING_DOWN");
        assertThat(job.stats.completedIds()).containsExactly(2L, 3L, 4L);
    }

    @Test
    void masterHookCompletingAfterTimeoutExpiresOnlyThatCheckpoint() {
        CompletableFuture<byte[]> slow = new CompletableFuture<>();
        AtomicInteger calls = new AtomicInteger();
        hooks.add(hook("enumerator", checkpointId -> calls.getAndIncrement() == 0 ? slow : CompletableFuture.completedFuture(new byte[] {1})));
        start(Map.of("execution.checkpointing.interval", 100, "execution.checkpointing.timeout", 50,
                "execution.checkpointing.tolerable-failed-checkpoints", 5));
        coordinator.startCheckpointScheduler();
        timer.advance(100);
        assertThat(job.triggerCount(1)).as("no task is triggered before the hooks finish").isZero();
        timer.advance(50);
        assertThat(job.stats.failed).containsExactly("1 CHECKPOINT_EXPIRED");
        slow.complete(new byte[] {9});
        timer.runPending();
        assertThat(job.triggerCount(1)).as("a hook finishing after expiry triggers nothing").isZero();
        timer.advance(250);
        assertThat(job.stats.completedIds()).containsExactly(2L, 3L, 4L);
    }

    @Test
    void masterHookStateIsStoredInTheCheckpointMetadata() {
        hooks.add(hook("enumerator", checkpointId -> CompletableFuture.completedFuture(new byte[] {(byte) checkpointId, 7})));
        start(Map.of());
        CompletedCheckpoint completed = trigger(CheckpointTriggerKind.MANUAL).join();

        assertThat(completed.metadata().masterStates()).containsExactly(new MasterState("enumerator", new byte[] {1, 7}));
        assertThat(job.storage.finalized.get(1L).masterStates()).as("what _metadata holds")
                .containsExactly(new MasterState("enumerator", new byte[] {1, 7}));
    }

    @Test
    void failingMasterHookAbortsTheCheckpointBeforeAnyTaskIsTriggered() {
        hooks.add(hook("enumerator", checkpointId -> CompletableFuture.failedFuture(new IllegalStateException("no splits"))));
        start(Map.of("execution.checkpointing.tolerable-failed-checkpoints", 5));
        CompletableFuture<CompletedCheckpoint> f = trigger(CheckpointTriggerKind.MANUAL);
        assertThat(reasonOf(f)).isEqualTo(CheckpointFailureReason.CHECKPOINT_DECLINED);
        assertThat(job.eventsStartingWith("trigger ")).isEmpty();
    }

    @Test
    void finalRequestQueuedWhileAnotherIsPendingRunsAfterItCompletesWithFinalOptions() {
        start(Map.of());
        job.autoAck = false;
        CompletableFuture<CompletedCheckpoint> first = trigger(CheckpointTriggerKind.MANUAL);
        CompletableFuture<CompletedCheckpoint> fin = trigger(CheckpointTriggerKind.FINAL);
        assertThat(job.eventsStartingWith("init ")).containsExactly("init 1");
        job.autoAck = true;
        job.ackAll(1);
        timer.runPending();
        assertThat(first).isCompleted();
        assertThat(fin).isCompleted();
        assertThat(fin.join().checkpointId()).isEqualTo(2);
        assertThat(fin.join().metadata().isFinal()).isTrue();
        assertThat(job.task("src", 0).triggerOptions.get(1).isFinal()).isTrue();
        assertThat(job.task("src", 0).triggerOptions.get(0).isFinal()).isFalse();
    }

    @Test
    void newerCompletedCheckpointSubsumesOlderPendingOne() {
        start(Map.of("execution.checkpointing.max-concurrent-checkpoints", 2,
                "execution.checkpointing.tolerable-failed-checkpoints", 0));
        job.autoAck = false;
        CompletableFuture<CompletedCheckpoint> one = trigger(CheckpointTriggerKind.MANUAL);
        CompletableFuture<CompletedCheckpoint> two = trigger(CheckpointTriggerKind.MANUAL);
        job.ackAll(2);
        timer.runPending();
        assertThat(two).isCompleted();
        assertThat(reasonOf(one)).isEqualTo(CheckpointFailureReason.CHECKPOINT_SUBSUMED);
        assertThat(job.jobFailures).isEmpty();
    }

    // ------------------------------------------------------------------ restore and shutdown

    @Test
    void restoreFromStorageMovesCounterPastRestoredId() throws Exception {
        job.storage.finalized.put(41L, new CheckpointMetadata(41, "flight-delays", T0, false, Map.of()));
        start(Map.of());
        CompletedCheckpoint restored = restore().orElseThrow();
        assertThat(restored.checkpointId()).isEqualTo(41);
        assertThat(counter.get()).isEqualTo(42);
        assertThat(store.getLatestCheckpoint()).contains(restored);
        assertThat(trigger(CheckpointTriggerKind.MANUAL).join().checkpointId()).isEqualTo(42);
    }

    @Test
    void aJobStartedWithoutStateRecordsFlinksKeyPlacement() {
        start(Map.of());
        assertThat(restore()).isEmpty();
        assertThat(trigger(CheckpointTriggerKind.MANUAL).join().metadata().keyHashVersion()).isEqualTo(KeyHashVersion.FLINK);
    }

    @Test
    void aJobRestoredFromLegacyStateKeepsItsKeyPlacementInEveryLaterCheckpoint() throws Exception {
        job.storage.finalized.put(41L, new CheckpointMetadata(41, "flight-delays", T0, false, Map.of(), java.util.List.of(),
                KeyHashVersion.LEGACY));
        start(Map.of());
        assertThat(restore().orElseThrow().metadata().keyHashVersion()).isEqualTo(KeyHashVersion.LEGACY);

        assertThat(trigger(CheckpointTriggerKind.MANUAL).join().metadata().keyHashVersion()).isEqualTo(KeyHashVersion.LEGACY);
        // a failover restores checkpoint 42, written by this coordinator: still the legacy placement
        assertThat(restore().orElseThrow().checkpointId()).isEqualTo(42);
        assertThat(trigger(CheckpointTriggerKind.MANUAL).join().metadata().keyHashVersion()).isEqualTo(KeyHashVersion.LEGACY);
    }

    @Test
    void restorePrefersTheStoreAndNeverMovesTheCounterBack() throws Exception {
        start(Map.of());
        trigger(CheckpointTriggerKind.MANUAL).join();
        counter.setCount(10);
        assertThat(restore()).map(CompletedCheckpoint::checkpointId).contains(1L);
        assertThat(counter.get()).isEqualTo(10);
    }

    @Test
    void restoreWaitsForTheCompletionQueuedBeforeItAndChoosesThatCheckpoint() {
        start(Map.of());
        job.autoAck = false;
        CompletableFuture<CompletedCheckpoint> first = trigger(CheckpointTriggerKind.MANUAL);
        job.ackAll(1);
        timer.runPending();
        assertThat(first).isCompleted();
        trigger(CheckpointTriggerKind.MANUAL);
        job.ackAll(2); // the last ack of checkpoint 2 is queued: its _metadata is still to be written

        CompletableFuture<java.util.Optional<CompletedCheckpoint>> restore =
                coordinator.restoreLatestCheckpoint(CheckpointFailureReason.JOB_SHUTTING_DOWN);
        assertThat(restore).as("the restore point is chosen on the coordinator's thread, not the caller's").isNotDone();
        timer.runPending();

        assertThat(restore.join()).map(CompletedCheckpoint::checkpointId).contains(2L);
        assertThat(job.storage.finalized).containsKey(2L);
        assertThat(job.eventsStartingWith("finalize")).containsExactly("finalize 1", "finalize 2");
    }

    @Test
    void ackArrivingAfterTheRestoreRequestFindsTheCheckpointAbortedSoItNeverCompletes() {
        start(Map.of());
        job.autoAck = false;
        trigger(CheckpointTriggerKind.MANUAL);
        job.ackAll(1);
        timer.runPending();
        CompletableFuture<CompletedCheckpoint> second = trigger(CheckpointTriggerKind.MANUAL);
        for (FakeJob.FakeTask t : job.tasks.subList(0, 3)) {
            job.ack(t.id, 2);
        }
        timer.runPending();

        CompletableFuture<java.util.Optional<CompletedCheckpoint>> restore =
                coordinator.restoreLatestCheckpoint(CheckpointFailureReason.JOB_SHUTTING_DOWN);
        job.ack(job.tasks.get(3).id, 2); // the last ack, in flight when the restore was requested
        timer.runPending();

        assertThat(restore.join()).map(CompletedCheckpoint::checkpointId).contains(1L);
        assertThat(reasonOf(second)).isEqualTo(CheckpointFailureReason.JOB_SHUTTING_DOWN);
        assertThat(job.storage.finalized).doesNotContainKey(2L);
        assertThat(job.eventsStartingWith("finalize")).containsExactly("finalize 1");
        assertThat(job.eventsStartingWith("discard")).as("the location of 2, again for the late ack's state")
                .containsExactly("discard 2", "discard 2");
        assertThat(job.stats.completedIds()).containsExactly(1L);
        assertThat(job.jobFailures).isEmpty();
    }

    @Test
    void failoverFailsQueuedRequestsInsteadOfStartingThemOnTheOldTasks() {
        start(Map.of("execution.checkpointing.max-concurrent-checkpoints", 1));
        job.autoAck = false;
        CompletableFuture<CompletedCheckpoint> pending = trigger(CheckpointTriggerKind.MANUAL);
        CompletableFuture<CompletedCheckpoint> queuedFinal = trigger(CheckpointTriggerKind.FINAL);
        assertThat(queuedFinal).isNotDone();

        coordinator.abortPendingCheckpoints(CheckpointFailureReason.JOB_SHUTTING_DOWN);
        timer.runPending();

        assertThat(reasonOf(pending)).isEqualTo(CheckpointFailureReason.JOB_SHUTTING_DOWN);
        assertThat(reasonOf(queuedFinal)).isEqualTo(CheckpointFailureReason.JOB_SHUTTING_DOWN);
        assertThat(job.triggerCount(2)).as("the queued request never started on the old attempt").isZero();
        job.restartAs(1);
        job.autoAck = true;
        assertThat(trigger(CheckpointTriggerKind.MANUAL)).as("nothing blocks the new attempt")
                .isCompletedWithValueMatching(cp -> cp.checkpointId() == 2);
        assertThat(job.jobFailures).isEmpty();
    }

    @Test
    void restoreAfterShutdownFailsWithJobShuttingDown() {
        start(Map.of());
        coordinator.shutdown();
        assertThat(reasonOf(coordinator.restoreLatestCheckpoint(CheckpointFailureReason.JOB_SHUTTING_DOWN)))
                .isEqualTo(CheckpointFailureReason.JOB_SHUTTING_DOWN);
    }

    @Test
    void shutdownAbortsPendingWithoutCountingAndRejectsNewRequests() {
        start(Map.of());
        job.autoAck = false;
        CompletableFuture<CompletedCheckpoint> pending = trigger(CheckpointTriggerKind.MANUAL);
        CompletableFuture<CompletedCheckpoint> queued = trigger(CheckpointTriggerKind.MANUAL);
        coordinator.shutdown();
        timer.runPending();
        assertThat(reasonOf(pending)).isEqualTo(CheckpointFailureReason.JOB_SHUTTING_DOWN);
        assertThat(reasonOf(queued)).isEqualTo(CheckpointFailureReason.JOB_SHUTTING_DOWN);
        assertThat(reasonOf(coordinator.triggerCheckpoint(CheckpointTriggerKind.MANUAL)))
                .isEqualTo(CheckpointFailureReason.JOB_SHUTTING_DOWN);
        assertThat(job.jobFailures).isEmpty();
    }
}
