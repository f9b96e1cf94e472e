package io.weir.ha.hazelcast.checkpoint;

import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.map.IMap;
import io.weir.core.checkpoint.CheckpointMetadata;
import io.weir.core.checkpoint.CompletedCheckpoint;
import io.weir.core.ha.CheckpointIDCounter;
import io.weir.core.ha.CompletedCheckpointStore;
import io.weir.ha.hazelcast.TestClusters;
import io.weir.storage.fs.FsCheckpointStorage;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The fenced counter and store on real Hazelcast members in this JVM (3 members, production configuration: two
 * synchronous backups, TCP/IP join on loopback).
 */
class CheckpointIdCounterClusterTest {

    private static IMap<String, CounterState> counters(HazelcastInstance m) {
        return m.getMap(HazelcastCheckpointRecoveryFactory.COUNTER_MAP);
    }

    @Test
    void concurrentIncrementsFromThreeMembersNeverHandOutAnIdTwice() throws Exception {
        List<HazelcastInstance> members = TestClusters.start("counter-concurrent", TestClusters.freePorts(3));
        ExecutorService pool = Executors.newFixedThreadPool(6);
        try {
            List<CheckpointIDCounter> counters = new ArrayList<>();
            for (HazelcastInstance m : members) {
                counters.add(new HazelcastCheckpointIDCounter("job", counters(m), 1, 1));
                counters.add(new HazelcastCheckpointIDCounter("job", counters(m), 1, 1));
            }
            CountDownLatch go = new CountDownLatch(1);
            List<Future<List<Long>>> drawn = new ArrayList<>();
            for (CheckpointIDCounter c : counters) {
                drawn.add(pool.submit(() -> {
                    go.await();
                    List<Long> ids = new ArrayList<>();
                    for (int i = 0; i < 100; i++) {
                        ids.add(c.getAndIncrement());
                    }
                    return ids;
                }));
            }
            go.countDown();
            Set<Long> all = new HashSet<>();
            for (Future<List<Long>> f : drawn) {
                List<Long> ids = f.get(120, TimeUnit.SECONDS);
                assertThat(ids).isSorted();
                all.addAll(ids);
            }
            assertThat(all).hasSize(600);
            assertThat(all).allMatch(id -> id >= 1 && id <= 600);
            assertThat(counters.get(0).get()).isEqualTo(601);
        } finally {
            pool.shutdownNow();
            TestClusters.terminate(members);
        }
    }

    @Test
    void killingTheMemberHoldingThePrimaryMidIncrementNeverRepeatsAnId() throws Exception {
        List<HazelcastInstance> members = TestClusters.start("counter-kill", TestClusters.freePorts(3));
        ExecutorService pool = Executors.newSingleThreadExecutor();
        try {
            counters(members.get(0)).get("job"); // the partition table is assigned on first use
            HazelcastInstance primary = members.stream()
                    .filter(m -> m.getPartitionService().getPartition("job").getOwner().getUuid()
                            .equals(m.getCluster().getLocalMember().getUuid()))
                    .findFirst().orElseThrow();
            HazelcastInstance caller = members.stream().filter(m -> m != primary).findFirst().orElseThrow();
            CheckpointIDCounter counter = new HazelcastCheckpointIDCounter("job", counters(caller), 1, 1);
            ConcurrentLinkedQueue<Long> ids = new ConcurrentLinkedQueue<>();
            CountDownLatch halfway = new CountDownLatch(1);
            Future<?> drawing = pool.submit(() -> {
                for (int i = 0; i < 400; i++) {
                    ids.add(counter.getAndIncrement());
                    if (i == 100) {
                        halfway.countDown();
                    }
                }
                return null;
            });
            assertThat(halfway.await(120, TimeUnit.SECONDS)).isTrue();
            primary.getLifecycleService().terminate(); // abrupt, while increments are in flight
            drawing.get(120, TimeUnit.SECONDS);
            List<Long> drawn = new ArrayList<>(ids);
            assertThat(drawn).hasSize(400).doesNotHaveDuplicates().isSorted();
            assertThat(counter.get()).isGreaterThan(drawn.get(drawn.size() - 1));
        } finally {
            pool.shutdownNow();
            TestClusters.terminate(members);
        }
    }

    @Test
    void afterARestartOfTheWholeClusterIdsContinueAboveEveryCompletedAndEveryStartedCheckpoint(@TempDir Path dir) throws Exception {
        List<Integer> ports = TestClusters.freePorts(3);
        FsCheckpointStorage storage = new FsCheckpointStorage(dir, "job");
        long lastBefore;
        List<HazelcastInstance> first = TestClusters.start("counter-restart", ports);
        try {
            HazelcastCheckpointRecoveryFactory factory = new HazelcastCheckpointRecoveryFactory(() -> first.get(0), job -> 1);
            CheckpointIDCounter counter = factory.createCheckpointIDCounter("job", storage);
            CompletedCheckpointStore store = factory.createCompletedCheckpointStore("job", 2, storage);
            for (int i = 0; i < 5; i++) {
                long id = counter.getAndIncrement();
                Files.createDirectories(storage.checkpointDirectory(id)); // each id's location exists, as the coordinator's would
                store.addCheckpointAndSubsumeOldest(completed(id), cp -> { });
            }
            lastBefore = counter.getAndIncrement(); // 6: started, never completed
            Files.createDirectories(storage.checkpointDirectory(lastBefore));
        } finally {
            TestClusters.terminate(first); // every map is lost
        }
        assertThat(lastBefore).isEqualTo(6);
        List<HazelcastInstance> second = TestClusters.start("counter-restart", ports);
        try {
            assertThat(counters(second.get(1)).get("job")).isNull();
            HazelcastCheckpointRecoveryFactory factory = new HazelcastCheckpointRecoveryFactory(() -> second.get(1), job -> 1);
            CheckpointIDCounter counter = factory.createCheckpointIDCounter("job", storage);
            assertThat(counter.getAndIncrement()).isEqualTo(7);
        } finally {
            TestClusters.terminate(second);
        }
    }

    @Test
    void aFormerOwnerCanNeitherDrawIdsNorCompleteCheckpointsOnceTheNewOwnerClaimedTheJob() throws Exception {
        List<HazelcastInstance> members = TestClusters.start("counter-fence", TestClusters.freePorts(3));
        try {
            IMap<String, StoreState> stores = members.get(0).getMap(HazelcastCheckpointRecoveryFactory.STORE_MAP);
            HazelcastCheckpointIDCounter oldCounter = new HazelcastCheckpointIDCounter("job", counters(members.get(0)), 1, 1);
            HazelcastCompletedCheckpointStore oldStore = new HazelcastCompletedCheckpointStore("job", stores, 1, 1,
                    CheckpointIdCounterClusterTest::metadataAt);
            long zombieId = oldCounter.getAndIncrement();
            assertThat(zombieId).isEqualTo(1);
            oldStore.addCheckpointAndSubsumeOldest(completed(zombieId), cp -> { });

            // the new owner (epoch 2) on another member
            HazelcastCheckpointIDCounter newCounter = new HazelcastCheckpointIDCounter("job", counters(members.get(2)), 2, 2);
            List<Long> discarded = new ArrayList<>();
            HazelcastCompletedCheckpointStore newStore = new HazelcastCompletedCheckpointStore("job",
                    members.get(2).getMap(HazelcastCheckpointRecoveryFactory.STORE_MAP), 2, 1, CheckpointIdCounterClusterTest::metadataAt);

            assertThatThrownBy(oldCounter::getAndIncrement).isInstanceOf(FencedWriteException.class)
                    .hasMessageContaining("epoch 1 is older than the stored epoch 2");
            assertThatThrownBy(() -> oldStore.addCheckpointAndSubsumeOldest(completed(5), cp -> discarded.add(cp.checkpointId())))
                    .isInstanceOf(FencedWriteException.class).hasMessageContaining("completing checkpoint 5");

            long id = newCounter.getAndIncrement();
            assertThat(id).isEqualTo(2);
            newStore.addCheckpointAndSubsumeOldest(completed(id), cp -> discarded.add(cp.checkpointId()));
            assertThat(discarded).as("one spare beyond num-retained (1) is kept").isEmpty();
            long next = newCounter.getAndIncrement();
            newStore.addCheckpointAndSubsumeOldest(completed(next), cp -> {
                // the store no longer references the subsumed checkpoint when its files go
                assertThat(stores.get("job").checkpoints()).extracting(StoredCheckpoint::checkpointId).containsExactly(2L, 3L);
                discarded.add(cp.checkpointId());
            });
            assertThat(discarded).containsExactly(1L);
            assertThat(newStore.getLatestCheckpoint()).map(CompletedCheckpoint::checkpointId).contains(3L);
            assertThat(oldStore.getLatestCheckpoint()).map(CompletedCheckpoint::checkpointId).contains(3L);
        } finally {
            TestClusters.terminate(members);
        }
    }

    private static CompletedCheckpoint completed(long id) {
        return new CompletedCheckpoint(id, 1000 + id, 2000 + id, "/chk/job/chk-" + id, metadataAt("/chk/job/chk-" + id));
    }

    private static CheckpointMetadata metadataAt(String pointer) {
        long id = Long.parseLong(pointer.substring(pointer.lastIndexOf('-') + 1));
        return new CheckpointMetadata(id, "job", 1000 + id, false, Map.of());
    }
}
