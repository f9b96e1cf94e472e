package io.weir.coordinator;

import io.weir.coordinator.standalone.StandaloneCheckpointIDCounter;
import io.weir.coordinator.standalone.StandaloneCompletedCheckpointStore;
import io.weir.core.checkpoint.CheckpointMetadata;
import io.weir.core.checkpoint.CompletedCheckpoint;
import io.weir.core.checkpoint.MasterState;
import io.weir.core.coordination.MasterHook;
import io.weir.core.storage.CheckpointStorage;
import io.weir.core.storage.CheckpointStreamFactory;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class CheckpointRestorerTest {
    private final FakeJob job = new FakeJob(0);
    private final StandaloneCompletedCheckpointStore store = new StandaloneCompletedCheckpointStore("flight-delays", 1);
    private final StandaloneCheckpointIDCounter counter = new StandaloneCheckpointIDCounter();
    private final CheckpointRestorer restorer = new CheckpointRestorer("flight-delays", store, job.storage, counter,
            new CheckpointLocationDiscarder("flight-delays", job.storage), List.of());

    private static CheckpointMetadata metadata(long id) {
        return new CheckpointMetadata(id, "flight-delays", 5_000 + id, false, Map.of());
    }

    @Test
    void nothingToRestoreLeavesTheCounterAlone() throws Exception {
        assertThat(restorer.restoreLatest()).isEmpty();
        assertThat(counter.get()).isEqualTo(1);
    }

    @Test
    void emptyStoreFallsBackToNewestStorageCheckpointAndAddsItToTheStore() throws Exception {
        job.storage.finalized.put(3L, metadata(3));
        job.storage.finalized.put(7L, metadata(7));
        CompletedCheckpoint restored = restorer.restoreLatest().orElseThrow();
        assertThat(restored.checkpointId()).isEqualTo(7);
        assertThat(restored.externalPointer()).isEqualTo("mem://chk-7");
        assertThat(restored.triggerTimestamp()).isEqualTo(5_007);
        assertThat(store.getLatestCheckpoint()).contains(restored);
        assertThat(counter.get()).isEqualTo(8);
    }

    @Test
    void olderCheckpointsOnDiskBecomeRetainedSoTheyAreSubsumedAndDiscardedInOrder() throws Exception {
        StandaloneCompletedCheckpointStore keepThree = new StandaloneCompletedCheckpointStore("flight-delays", 3);
        for (long id : new long[] {1, 2, 3, 4}) {
            job.storage.finalized.put(id, metadata(id));
        }
        CheckpointRestorer restorer = new CheckpointRestorer("flight-delays", keepThree, job.storage, counter,
                new CheckpointLocationDiscarder("flight-delays", job.storage), List.of());

        assertThat(restorer.restoreLatest().orElseThrow().checkpointId()).isEqualTo(4);
        assertThat(keepThree.getAllCheckpoints()).extracting(CompletedCheckpoint::checkpointId).containsExactly(2L, 3L, 4L);
        assertThat(job.events).as("what a killed run left beyond the retained ones is removed").contains("keep only [2, 3, 4]");
        assertThat(job.storage.finalized.keySet()).containsExactlyInAnyOrder(2L, 3L, 4L);

        keepThree.addCheckpointAndSubsumeOldest(new CompletedCheckpoint(5, 1, 2, "mem://chk-5", metadata(5)),
                new CheckpointLocationDiscarder("flight-delays", job.storage)::discardSubsumed);
        assertThat(job.eventsStartingWith("discard ")).as("the oldest retained one goes when a new one completes")
                .containsExactly("discard 2");
    }

    @Test
    void storeWinsOverStorageAndTheCounterNeverMovesBack() throws Exception {
        job.storage.finalized.put(9L, metadata(9));
        CompletedCheckpoint inStore = new CompletedCheckpoint(4, 1, 2, "mem://chk-4", metadata(4));
        store.addCheckpointAndSubsumeOldest(inStore, cp -> { });
        counter.setCount(20);
        assertThat(restorer.restoreLatest()).contains(inStore);
        assertThat(counter.get()).isEqualTo(20);
    }

    @Test
    void unreadableMetadataFailsNamingJobAndPointerAndLeavesTheCounterAlone() {
        CheckpointStorage corrupt = new CheckpointStorage() {
            @Override
            public CheckpointStreamFactory initCheckpoint(long checkpointId) {
                throw new UnsupportedOperationException();
            }

            @Override
            public CheckpointStreamFactory resolveCheckpoint(long checkpointId) {
                throw new UnsupportedOperationException();
            }

            @Override
            public String finalizeCheckpoint(CheckpointMetadata metadata) {
                throw new UnsupportedOperationException();
            }

            @Override
            public CheckpointMetadata loadCheckpoint(String pointer) throws IOException {
                throw new IOException("truncated _metadata at " + pointer);
            }

            @Override
            public Optional<String> findLatestCompletedCheckpoint() {
                return Optional.of("mem://chk-5");
            }

            @Override
            public void discardCheckpoint(long checkpointId) {
            }
        };
        CheckpointRestorer restorer = new CheckpointRestorer("flight-delays", store, corrupt, counter,
                new CheckpointLocationDiscarder("flight-delays", corrupt), List.of());
        assertThatThrownBy(restorer::restoreLatest).isInstanceOf(IOException.class)
                .hasMessage("cannot restore job flight-delays from mem://chk-5")
                .hasRootCauseMessage("truncated _metadata at mem://chk-5");
        assertThat(counter.get()).isEqualTo(1);
    }

    @Test
    void eachMasterHookGetsItsStoredStateAndAHookWithoutStateGetsNull() throws Exception {
        job.storage.finalized.put(6L, new CheckpointMetadata(6, "flight-delays", 5_006, false, Map.of(),
                List.of(new MasterState("enumerator", new byte[] {3, 1, 4}))));
        RestoringHook enumerator = new RestoringHook("enumerator");
        RestoringHook fresh = new RestoringHook("added-later");
        CheckpointRestorer withHooks = new CheckpointRestorer("flight-delays", store, job.storage, counter,
                new CheckpointLocationDiscarder("flight-delays", job.storage), List.of(enumerator, fresh));

        assertThat(withHooks.restoreLatest()).isPresent();
        assertThat(enumerator.restored).containsExactly("6:[3, 1, 4]");
        assertThat(fresh.restored).containsExactly("6:null");
    }

    @Test
    void stateOfAMasterHookTheJobDoesNotHaveFailsTheRestoreNamingIt() {
        job.storage.finalized.put(6L, new CheckpointMetadata(6, "flight-delays", 5_006, false, Map.of(),
                List.of(new MasterState("enumerator", new byte[] {1}), new MasterState("gone", new byte[] {2}))));
        RestoringHook enumerator = new RestoringHook("enumerator");
        CheckpointRestorer withHooks = new CheckpointRestorer("flight-delays", store, job.storage, counter,
                new CheckpointLocationDiscarder("flight-delays", job.storage), List.of(enumerator));

        assertThatThrownBy(withHooks::restoreLatest).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("checkpoint 6 of job flight-delays holds state of master hook(s) [gone]");
        assertThat(enumerator.restored).as("no hook is restored from a checkpoint that cannot be restored whole").isEmpty();
    }

    /** Records what it is restored with. */
    private static final class RestoringHook implements MasterHook {
        private final String id;
        final List<String> restored = new ArrayList<>();

        RestoringHook(String id) {
            this.id = id;
        }

        @Override
        public String id() {
            return id;
        }

        @Override
        public CompletableFuture<byte[]> triggerCheckpoint(long checkpointId, long timestamp) {
            return CompletableFuture.completedFuture(new byte[0]);
        }

        @Override
        public void restoreCheckpoint(long checkpointId, byte[] state) {
            restored.add(checkpointId + ":" + (state == null ? "null" : Arrays.toString(state)));
        }
    }
}
