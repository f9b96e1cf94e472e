package io.weir.coordinator;

import io.weir.coordinator.standalone.StandaloneCheckpointIDCounter;
import io.weir.coordinator.standalone.StandaloneCompletedCheckpointStore;
import io.weir.core.checkpoint.CheckpointAlignment;
import io.weir.core.checkpoint.CheckpointFailureReason;
import io.weir.core.checkpoint.CheckpointMetadata;
import io.weir.core.checkpoint.CompletedCheckpoint;
import io.weir.core.checkpoint.OperatorState;
import io.weir.core.checkpoint.TaskId;
import io.weir.core.config.CheckpointingOptions;
import io.weir.core.config.Configuration;
import io.weir.core.coordination.CheckpointCoordinatorContext;
import io.weir.core.coordination.CheckpointTriggerKind;
import io.weir.core.coordination.OperatorInfo;
import org.junit.jupiter.api.Test;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Savepoints in the coordinator (PROTOCOL.md §7) and the first restore from a user's savepoint. */
class CheckpointCoordinatorSavepointTest {
    private static final long T0 = 1_000_000;

    private final ManualCheckpointTimer timer = new ManualCheckpointTimer(T0);
    private final FakeJob job = new FakeJob(0);
    private final StandaloneCheckpointIDCounter counter = new StandaloneCheckpointIDCounter();
    private StandaloneCompletedCheckpointStore store;
    private CheckpointCoordinator coordinator;

    private void start(Map<String, Object> options) {
        Map<String, Object> all = new HashMap<>(Map.of("execution.checkpointing.timeout", "10 s"));
        all.putAll(options);
        Configuration config = new Configuration(all);
        store = new StandaloneCompletedCheckpointStore("flights", config.get(CheckpointingOptions.NUM_RETAINED));
        coordinator = new CheckpointCoordinator(new CheckpointCoordinatorContext("flights", config,
                List.of(new OperatorInfo("src", 2, 128), new OperatorInfo("map", 2, 128)), job::gateways,
                job.storage, counter, store, List.of(), job.jobFailures::add, job.stats), timer);
        job.responder = coordinator;
    }

    private Optional<CompletedCheckpoint> restore() {
        CompletableFuture<Optional<CompletedCheckpoint>> f = coordinator.restoreLatestCheckpoint(CheckpointFailureReason.JOB_SHUTTING_DOWN);
        timer.runPending();
        return f.join();
    }

    private CompletedCheckpoint checkpoint() {
        CompletableFuture<CompletedCheckpoint> f = coordinator.triggerCheckpoint(CheckpointTriggerKind.MANUAL);
        timer.runPending();
        return f.join();
    }

    private CompletedCheckpoint savepoint(String dir, boolean terminate) {
        CompletableFuture<CompletedCheckpoint> f = coordinator.triggerSavepoint(dir, terminate);
        timer.runPending();
        return f.join();
    }

    /** A savepoint of 7 taken by an earlier run, with state of {@code operators}. */
    private String earlierSavepoint(long id, String... operators) {
        Map<String, OperatorState> states = new HashMap<>();
        for (String op : operators) {
            states.put(op, new OperatorState(op, 1, 128, Map.of(0,
                    FakeJob.snapshotOf(new TaskId(op, 0, 0), 10).subtaskStates().get(op))));
        }
        String pointer = "/moved/savepoint-flights-abcdef";
        job.storage.savepoints.put(pointer, new CheckpointMetadata(id, "flights", T0, false, states));
        return pointer;
    }

    @Test
    void savepointIsAlignedGoesToItsTargetAndIsNotifiedButNeverEntersTheStore() {
        start(Map.of("execution.checkpointing.unaligned.enabled", true));
        CompletedCheckpoint sp = savepoint("/sp", false);

        assertThat(sp.externalPointer()).isEqualTo("/sp/savepoint-1");
        assertThat(job.events).contains("init-savepoint 1 /sp").doesNotContain("init 1");
        assertThat(job.task("src", 0).triggerOptions).singleElement().satisfies(o -> {
            assertThat(o.alignment()).isEqualTo(CheckpointAlignment.ALIGNED);
            assertThat(o.isFinal()).isFalse();
        });
        assertThat(job.eventsStartingWith("complete ")).containsExactlyInAnyOrder("complete src#0 1", "complete src#1 1",
                "complete map#0 1", "complete map#1 1");
        assertThat(store.getAllCheckpoints()).isEmpty();
        assertThat(job.stats.completedIds()).containsExactly(1L);
    }

    @Test
    void statsOfASavepointSayItIsOneAndNameItsDirectoryAndACheckpointsDoNot() {
        start(Map.of());
        CompletedCheckpoint cp = checkpoint();
        savepoint("/sp", false);

        assertThat(job.stats.completed).hasSize(2);
        assertThat(job.stats.completed.get(0).isSavepoint()).isFalse();
        assertThat(job.stats.completed.get(0).externalPath()).isEqualTo(cp.externalPointer());
        assertThat(job.stats.completed.get(1).isSavepoint()).isTrue();
        assertThat(job.stats.completed.get(1).externalPath()).isEqualTo("/sp/savepoint-2");
    }

    @Test
    void terminatingSavepointCarriesTheFinalFlagToTheTasks() {
        start(Map.of());
        savepoint("/sp", true);
        assertThat(job.task("map", 1).triggerOptions).isEmpty(); // only sources are triggered
        assertThat(job.task("src", 1).triggerOptions).singleElement()
                .satisfies(o -> assertThat(o.isFinal()).isTrue());
    }

    @Test
    void savepointsAreNeitherSubsumedNorDiscardedNorCountedInNumRetained() {
        start(Map.of("execution.checkpointing.num-retained", 2));
        checkpoint();
        savepoint("/sp", false);
        checkpoint();
        assertThat(store.getAllCheckpoints()).extracting(CompletedCheckpoint::checkpointId).containsExactly(1L, 3L);
        checkpoint();
        assertThat(store.getAllCheckpoints()).extracting(CompletedCheckpoint::checkpointId).containsExactly(3L, 4L);
        assertThat(job.eventsStartingWith("discard")).containsExactly("discard 1");
        assertThat(job.storage.savepoints).containsKey("/sp/savepoint-2");
    }

    @Test
    void failoverRestoresASavepointNewerThanTheLatestCheckpointSinceItsOutputMayBeCommitted() {
        start(Map.of());
        checkpoint();
        savepoint("/sp", false);
        assertThat(restore()).map(CompletedCheckpoint::checkpointId).contains(2L);
        assertThat(counter.get()).isEqualTo(3);
        checkpoint();
        assertThat(restore()).map(CompletedCheckpoint::checkpointId).contains(3L);
    }

    @Test
    void aNewCoordinatorResumesFromASavepointRecordedAfterTheNewestCheckpoint() {
        start(Map.of());
        checkpoint();
        savepoint("/sp", false);
        assertThat(job.events).containsSubsequence("finalize 2", "record-savepoint 2", "complete src#0 2");

        // a new process: new store, new coordinator, the same storage
        start(Map.of());
        CompletedCheckpoint restored = restore().orElseThrow();
        assertThat(restored.checkpointId()).isEqualTo(2);
        assertThat(restored.externalPointer()).isEqualTo("/sp/savepoint-2");
        assertThat(checkpoint().checkpointId()).isEqualTo(3);
        assertThat(job.storage.records).as("the newer checkpoint makes the record obsolete").isEmpty();

        start(Map.of());
        assertThat(restore()).map(CompletedCheckpoint::checkpointId).contains(3L);
    }

    @Test
    void aRecordedSavepointThatCannotBeReadIsRefusedInsteadOfFallingBackToAnOlderCheckpoint() {
        start(Map.of());
        checkpoint();
        savepoint("/sp", false);
        job.storage.savepoints.clear(); // moved away

        start(Map.of());
        assertThatThrownBy(this::restore).cause().hasMessageContaining("took savepoint 2 at /sp/savepoint-2 after its newest"
                + " checkpoint 1").hasMessageContaining("--from-savepoint");
    }

    @Test
    void aFailedSavepointFailsItsRequestButNeverTheJob() {
        start(Map.of("execution.checkpointing.tolerable-failed-checkpoints", 0));
        CompletableFuture<CompletedCheckpoint> f = coordinator.triggerSavepoint("/read-only/sp", false);
        timer.runPending();

        assertThat(f).isCompletedExceptionally();
        assertThatThrownBy(f::join).cause().hasMessageContaining("checkpoint 1 of job flights")
                .cause().hasMessageContaining("cannot create the location of savepoint 1").hasMessageContaining("/read-only/sp");
        assertThat(job.triggerCount(1)).isZero();
        assertThat(job.jobFailures).as("not counted toward tolerable-failed-checkpoints").isEmpty();
        assertThat(checkpoint().checkpointId()).isEqualTo(2);
    }

    @Test
    void firstRestoreUsesTheNamedSavepointAndMovesTheCounterPastIt() {
        String pointer = earlierSavepoint(7, "src", "map");
        start(Map.of("execution.savepoint.path", pointer));
        CompletedCheckpoint restored = restore().orElseThrow();
        assertThat(restored.checkpointId()).isEqualTo(7);
        assertThat(restored.externalPointer()).isEqualTo(pointer);
        assertThat(counter.get()).isEqualTo(8);
        assertThat(store.getAllCheckpoints()).as("the savepoint is the user's: never subsumed or discarded").isEmpty();
        // a failover before any new checkpoint restores the savepoint again; after one, that checkpoint
        assertThat(restore()).map(CompletedCheckpoint::checkpointId).contains(7L);
        assertThat(checkpoint().checkpointId()).isEqualTo(8);
        assertThat(restore()).map(CompletedCheckpoint::checkpointId).contains(8L);
        assertThat(job.eventsStartingWith("discard")).isEmpty();
    }

    @Test
    void stateOfAnOperatorTheJobLacksIsRefusedNamingIt() {
        String pointer = earlierSavepoint(3, "src", "map", "old-filter", "old-agg");
        start(Map.of("execution.savepoint.path", pointer));
        assertThatThrownBy(this::restore).isInstanceOf(CompletionException.class).cause()
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("holds state of operator(s) [old-agg, old-filter] that job flights does not have")
                .hasMessageContaining("--allow-non-restored-state");
    }

    @Test
    void stateOfAnOperatorTheJobLacksIsDroppedWhenAllowed() {
        String pointer = earlierSavepoint(3, "src", "old-agg");
        start(Map.of("execution.savepoint.path", pointer, "execution.savepoint.ignore-unclaimed-state", true));
        assertThat(restore()).map(CompletedCheckpoint::checkpointId).contains(3L);
    }

    @Test
    void aSavepointWhileTheJobHasCheckpointsOfItsOwnIsAmbiguousAndRefused() {
        job.storage.finalized.put(12L, new CheckpointMetadata(12, "flights", T0, false, Map.of()));
        String pointer = earlierSavepoint(3, "src");
        start(Map.of("execution.savepoint.path", pointer));
        assertThatThrownBy(this::restore).cause().isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("already holds checkpoint mem://chk-12")
                .hasMessageContaining("delete the job's checkpoints").hasMessageContaining("drop --from-savepoint");
    }

    @Test
    void aPathWithoutMetadataIsRefusedNamingIt() {
        start(Map.of("execution.savepoint.path", "/nowhere/sp"));
        assertThatThrownBy(this::restore).cause().hasMessageContaining("cannot restore job flights from savepoint /nowhere/sp");
    }
}
