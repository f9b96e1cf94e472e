package io.weir.ha.hazelcast.member;

import com.hazelcast.config.Config;
import com.hazelcast.spi.merge.MergingValue;
import io.weir.ha.hazelcast.TestClusters;
import io.weir.ha.hazelcast.checkpoint.CounterState;
import io.weir.ha.hazelcast.checkpoint.HazelcastCheckpointRecoveryFactory;
import io.weir.ha.hazelcast.checkpoint.StoreState;
import io.weir.ha.hazelcast.checkpoint.StoredCheckpoint;
import io.weir.ha.hazelcast.jobs.ClusterJob;
import io.weir.ha.hazelcast.jobs.ClusterJobStatus;
import io.weir.ha.hazelcast.jobs.ClusterJobStore;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

class FencedMergePolicyTest {
    private final FencedMergePolicy policy = new FencedMergePolicy();

    /** A copy of a map entry as Hazelcast hands it to the policy; the raw value stands for its serialized form. */
    private record Copy(Object value) implements MergingValue<Object> {
        @Override
        public Object getDeserializedValue() {
            return value;
        }

        @Override
        public Object getRawValue() {
            return value;
        }
    }

    @Test
    void theStoreCopyWithTheNewerCheckpointWinsUnderTheSameEpoch() {
        StoreState surviving = store(3, 10);
        StoreState merging = store(3, 12);
        assertThat(policy.merge(new Copy(merging), new Copy(surviving))).isSameAs(merging);
        assertThat(policy.merge(new Copy(surviving), new Copy(merging))).isSameAs(merging);
    }

    @Test
    void aNewerEpochWinsOverFurtherProgressUnderAnOlderOne() {
        StoreState newerEpoch = store(4, 11);
        StoreState olderEpochFurther = store(3, 12);
        assertThat(policy.merge(new Copy(olderEpochFurther), new Copy(newerEpoch))).isSameAs(newerEpoch);
        CounterState counterNewer = new CounterState(5, 7);
        CounterState counterOlder = new CounterState(50, 6);
        assertThat(policy.merge(new Copy(counterNewer), new Copy(counterOlder))).isSameAs(counterNewer);
    }

    @Test
    void theCounterThatHandedOutMoreIdsWins() {
        CounterState low = new CounterState(20, 2);
        CounterState high = new CounterState(21, 2);
        assertThat(policy.merge(new Copy(high), new Copy(low))).isSameAs(high);
        assertThat(policy.merge(new Copy(low), new Copy(high))).isSameAs(high);
    }

    @Test
    void aJobEndedUnderTheSameEpochWinsOverItsRunningCopyAndAHigherEpochOverBoth() {
        ClusterJob running = job(ClusterJobStatus.RUNNING, 5);
        ClusterJob finished = job(ClusterJobStatus.FINISHED, 5);
        ClusterJob reassigned = job(ClusterJobStatus.RUNNING, 6);
        assertThat(policy.merge(new Copy(finished), new Copy(running))).isSameAs(finished);
        assertThat(policy.merge(new Copy(running), new Copy(finished))).isSameAs(finished);
        assertThat(policy.merge(new Copy(finished), new Copy(reassigned))).isSameAs(reassigned);
    }

    @Test
    void onATieOrAMissingCopyTheExistingOrTheOnlyCopyStays() {
        CounterState a = new CounterState(9, 1);
        CounterState b = new CounterState(9, 1);
        assertThat(policy.merge(new Copy(a), new Copy(b))).isSameAs(b);
        assertThat(policy.merge(new Copy(a), null)).isSameAs(a);
    }

    @Test
    void everyWeirMapMergesWithThePolicy() throws Exception {
        List<Integer> ports = TestClusters.freePorts(1);
        Config config = MemberConfigs.memberConfig(TestClusters.settings("merge", ports, ports.get(0)), getClass().getClassLoader());
        for (String map : List.of(ClusterJobStore.MAP, HazelcastCheckpointRecoveryFactory.COUNTER_MAP,
                HazelcastCheckpointRecoveryFactory.STORE_MAP)) {
            assertThat(config.getMapConfig(map).getMergePolicyConfig().getPolicy()).as(map).isEqualTo(FencedMergePolicy.class.getName());
        }
    }

    private static StoreState store(long epoch, long latestId) {
        return new StoreState(epoch, List.of(new StoredCheckpoint(latestId - 1, "/c/chk-" + (latestId - 1), 1, 2),
                new StoredCheckpoint(latestId, "/c/chk-" + latestId, 3, 4)));
    }

    private static ClusterJob job(ClusterJobStatus status, long epoch) {
        return new ClusterJob("j", "{}", "/base", Map.of(), status, "member-1", "http://127.0.0.1:8081", epoch, 1L, "");
    }
}
