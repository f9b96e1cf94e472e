package io.weir.ha.hazelcast.checkpoint;

import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.map.IMap;
import io.weir.core.checkpoint.CheckpointMetadata;
import io.weir.core.checkpoint.CompletedCheckpoint;
import io.weir.ha.hazelcast.TestClusters;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** A run this node stopped (its lease lapsed) completes no checkpoint, even one whose ADD was already under way. */
class StoppedRunCompletesNothingTest {
    private static List<HazelcastInstance> members;

    @BeforeAll
    static void cluster() throws Exception {
        members = TestClusters.start("stopped-run", TestClusters.freePorts(1));
    }

    @AfterAll
    static void stop() {
        TestClusters.terminate(members);
    }

    @Test
    void afterTheStopNoAddIsSentAndNothingIsDiscarded() throws Exception {
        IMap<String, StoreState> map = members.get(0).getMap(HazelcastCheckpointRecoveryFactory.STORE_MAP);
        AtomicBoolean held = new AtomicBoolean(true);
        HazelcastCompletedCheckpointStore store = new HazelcastCompletedCheckpointStore("job-a", map, 3, 1,
                StoppedRunCompletesNothingTest::metadataAt, held::get);
        List<Long> discarded = new ArrayList<>();
        store.addCheckpointAndSubsumeOldest(completed(10), cp -> discarded.add(cp.checkpointId()));

        held.set(false); // the watchdog stopped the run
        assertThatThrownBy(() -> store.addCheckpointAndSubsumeOldest(completed(11), cp -> discarded.add(cp.checkpointId())))
                .isInstanceOf(FencedWriteException.class).hasMessageContaining("completing checkpoint 11")
                .hasMessageContaining("stopped its run under epoch 3");
        assertThat(map.get("job-a").checkpoints()).extracting(StoredCheckpoint::checkpointId).containsExactly(10L);
        assertThat(discarded).isEmpty();
    }

    @Test
    void anAddAppliedAfterTheStopIsTakenOutAgainAndWhatItSubsumedKeepsItsFiles() throws Exception {
        IMap<String, StoreState> map = members.get(0).getMap(HazelcastCheckpointRecoveryFactory.STORE_MAP);
        // held for the claim check and the check before sending; lost by the time the ADD answers
        AtomicInteger checks = new AtomicInteger();
        AtomicBoolean stopAfterSend = new AtomicBoolean(false);
        HazelcastCompletedCheckpointStore store = new HazelcastCompletedCheckpointStore("job-b", map, 4, 2,
                StoppedRunCompletesNothingTest::metadataAt, () -> !(stopAfterSend.get() && checks.incrementAndGet() > 1));
        List<Long> discarded = new ArrayList<>();
        store.addCheckpointAndSubsumeOldest(completed(20), cp -> discarded.add(cp.checkpointId()));
        store.addCheckpointAndSubsumeOldest(completed(21), cp -> discarded.add(cp.checkpointId()));

        stopAfterSend.set(true);
        assertThatThrownBy(() -> store.addCheckpointAndSubsumeOldest(completed(22), cp -> discarded.add(cp.checkpointId())))
                .isInstanceOf(FencedWriteException.class).hasMessageContaining("completing checkpoint 22");
        assertThat(checks.get()).as("lease checks: before sending, after the answer").isEqualTo(2);
        assertThat(map.get("job-b").checkpoints()).extracting(StoredCheckpoint::checkpointId).containsExactly(20L, 21L);
        assertThat(map.get("job-b").epoch()).isEqualTo(4);
        assertThat(discarded).as("checkpoint 20, subsumed by the taken-out 22, keeps its files").isEmpty();
    }

    /**
     * The zombie race of issue 9: the owner's ADD is applied, then the process is paused (kill -STOP) before it reads the
     * answer; meanwhile its lease expires and the new owner claims the store, which holds that checkpoint, and restores from
     * it. On waking the former owner must not complete the checkpoint, and must not have its files discarded either: before
     * the fix it threw a {@link FencedWriteException}, on which the coordinator deletes the checkpoint's files, the very
     * files the new owner's restore (and any restore until its next checkpoint) reads.
     */
    @Test
    void anAddAppliedBeforeAPauseWhileANewOwnerClaimedTheStoreIsNeitherCompletedNorDiscarded() throws Exception {
        IMap<String, StoreState> map = members.get(0).getMap(HazelcastCheckpointRecoveryFactory.STORE_MAP);
        AtomicInteger checks = new AtomicInteger();
        AtomicBoolean pauseAfterSend = new AtomicBoolean(false);
        List<HazelcastCompletedCheckpointStore> newOwner = new ArrayList<>();
        HazelcastCompletedCheckpointStore zombie = new HazelcastCompletedCheckpointStore("job-d", map, 7, 1,
                StoppedRunCompletesNothingTest::metadataAt, () -> {
                    if (pauseAfterSend.get() && checks.incrementAndGet() > 1) {
                        // the point where the paused process wakes: the new owner has claimed the store meanwhile
                        if (newOwner.isEmpty()) {
                            newOwner.add(new HazelcastCompletedCheckpointStore("job-d", map, 8, 1,
                                    StoppedRunCompletesNothingTest::metadataAt));
                        }
                        return false;
                    }
                    return true;
                });
        List<Long> discarded = new ArrayList<>();
        zombie.addCheckpointAndSubsumeOldest(completed(40), cp -> discarded.add(cp.checkpointId()));

        pauseAfterSend.set(true);
        assertThatThrownBy(() -> zombie.addCheckpointAndSubsumeOldest(completed(41), cp -> discarded.add(cp.checkpointId())))
                .isInstanceOf(io.weir.core.ha.CheckpointPossiblyStoredException.class)
                .hasMessageContaining("checkpoint 41").hasMessageContaining("files are kept");
        assertThat(newOwner).as("the new owner claimed the store during the pause").hasSize(1);
        assertThat(newOwner.get(0).getLatestCheckpoint()).map(CompletedCheckpoint::checkpointId).contains(41L);
        assertThat(map.get("job-d").epoch()).isEqualTo(8);
        assertThat(discarded).as("checkpoint 40 was subsumed in the store: the new owner's to discard, not the zombie's").isEmpty();
    }

    @Test
    void aNewestCheckpointWhoseFilesAreGoneIsPassedOverForTheOneBefore() throws Exception {
        IMap<String, StoreState> map = members.get(0).getMap(HazelcastCheckpointRecoveryFactory.STORE_MAP);
        HazelcastCompletedCheckpointStore writer = new HazelcastCompletedCheckpointStore("job-c", map, 5, 1,
                StoppedRunCompletesNothingTest::metadataAt);
        writer.addCheckpointAndSubsumeOldest(completed(30), cp -> { });
        writer.addCheckpointAndSubsumeOldest(completed(31), cp -> { });
        // the next owner finds chk-31's files gone (its writer's coordinator discarded them after the checkpoint failed)
        HazelcastCompletedCheckpointStore reader = new HazelcastCompletedCheckpointStore("job-c", map, 6, 1, pointer -> {
            if (pointer.endsWith("chk-31")) {
                throw new java.io.IOException("checkpoint metadata file " + pointer + "/_metadata does not exist");
            }
            return metadataAt(pointer);
        });
        assertThat(reader.getLatestCheckpoint()).map(CompletedCheckpoint::checkpointId).contains(30L);
    }

    private static CompletedCheckpoint completed(long id) {
        return new CompletedCheckpoint(id, 1000 + id, 2000 + id, "/chk/job/chk-" + id, metadataAt("/chk/job/chk-" + id));
    }

    private static CheckpointMetadata metadataAt(String pointer) {
        long id = Long.parseLong(pointer.substring(pointer.lastIndexOf('-') + 1));
        return new CheckpointMetadata(id, "job", 1000 + id, false, Map.of());
    }
}
