package io.weir.ha.hazelcast.jobs;

import org.junit.jupiter.api.Test;

import java.util.AbstractMap;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** Job store transitions on a plain entry: each a compare-and-set on owner and epoch. */
class JobStoreProcessorTest {

    private static ClusterJob submitted() {
        return new ClusterJob("j", "{}", "/", Map.of(), ClusterJobStatus.RUNNING, null, "", 0, 1, "");
    }

    private static JobStoreProcessor.Result run(Map.Entry<String, ClusterJob> e, JobStoreProcessor.Op op, ClusterJob job, String member,
            long epoch, ClusterJobStatus status) {
        return new JobStoreProcessor(op, job, member, "http://" + member, epoch, status, "why").process(e);
    }

    @Test
    void everyAssignmentRaisesTheEpochAndAStaleAssignmentIsRefused() {
        Map.Entry<String, ClusterJob> e = new AbstractMap.SimpleEntry<>("j", null);
        assertThat(run(e, JobStoreProcessor.Op.SUBMIT, submitted(), null, 0, null).ok()).isTrue();
        assertThat(run(e, JobStoreProcessor.Op.ASSIGN, null, "m1", 0, null).job().epoch()).isEqualTo(1);
        assertThat(run(e, JobStoreProcessor.Op.ASSIGN, null, "m2", 0, null).ok()).as("leader saw epoch 0, store has 1").isFalse();
        assertThat(run(e, JobStoreProcessor.Op.ASSIGN, null, "m2", 1, null).job().epoch()).isEqualTo(2);
        assertThat(e.getValue().owner()).isEqualTo("m2");
    }

    @Test
    void renewAndEndSucceedOnlyForTheCurrentOwnerAndEpoch() {
        Map.Entry<String, ClusterJob> e = new AbstractMap.SimpleEntry<>("j", null);
        run(e, JobStoreProcessor.Op.SUBMIT, submitted(), null, 0, null);
        run(e, JobStoreProcessor.Op.ASSIGN, null, "m1", 0, null);
        run(e, JobStoreProcessor.Op.ASSIGN, null, "m2", 1, null);
        assertThat(run(e, JobStoreProcessor.Op.RENEW, null, "m1", 1, null).ok()).isFalse();
        assertThat(run(e, JobStoreProcessor.Op.RENEW, null, "m2", 2, null).ok()).isTrue();
        assertThat(run(e, JobStoreProcessor.Op.END, null, "m1", 1, ClusterJobStatus.FINISHED).ok()).isFalse();
        assertThat(e.getValue().status()).isEqualTo(ClusterJobStatus.RUNNING);
        assertThat(run(e, JobStoreProcessor.Op.END, null, "m2", 2, ClusterJobStatus.FINISHED).ok()).isTrue();
        assertThat(e.getValue().status()).isEqualTo(ClusterJobStatus.FINISHED);
    }

    @Test
    void cancelFencesTheOwnerAndAResubmissionKeepsTheEpochGrowing() {
        Map.Entry<String, ClusterJob> e = new AbstractMap.SimpleEntry<>("j", null);
        run(e, JobStoreProcessor.Op.SUBMIT, submitted(), null, 0, null);
        run(e, JobStoreProcessor.Op.ASSIGN, null, "m1", 0, null);
        assertThat(run(e, JobStoreProcessor.Op.SUBMIT, submitted(), null, 0, null).ok()).as("name already running").isFalse();
        assertThat(run(e, JobStoreProcessor.Op.CANCEL, null, null, 0, null).job().epoch()).isEqualTo(2);
        assertThat(run(e, JobStoreProcessor.Op.RENEW, null, "m1", 1, null).ok()).isFalse();
        assertThat(run(e, JobStoreProcessor.Op.SUBMIT, submitted(), null, 0, null).job().epoch()).isEqualTo(2);
        assertThat(run(e, JobStoreProcessor.Op.ASSIGN, null, "m3", 2, null).job().epoch()).isEqualTo(3);
    }
}
