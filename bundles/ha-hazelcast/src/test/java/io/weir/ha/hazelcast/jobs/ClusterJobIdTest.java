package io.weir.ha.hazelcast.jobs;

import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** A cluster job's id: one for its whole life across owners, a new one for a new submission of the name. */
class ClusterJobIdTest {
    private static ClusterJob submitted(String name, long submitTime) {
        return new ClusterJob(name, "{}", "/", Map.of(), ClusterJobStatus.RUNNING, null, "", 0, submitTime, "");
    }

    @Test
    void theIdStaysThroughAssignmentsAndTheEndAndIs32Hex() {
        ClusterJob job = submitted("flights", 1_700_000_000_000L);
        ClusterJob moved = job.assignedTo("m1", "http://a").assignedTo("m2", "http://b");
        ClusterJob cancelled = moved.ended(ClusterJobStatus.CANCELED, "by a user", true);

        assertThat(job.id()).matches("[0-9a-f]{32}");
        assertThat(moved.epoch()).isEqualTo(2);
        assertThat(moved.id()).isEqualTo(job.id());
        assertThat(cancelled.id()).isEqualTo(job.id());
        assertThat(submitted("flights", 1_700_000_000_000L).id()).as("the same on every member").isEqualTo(job.id());
    }

    @Test
    void anotherSubmissionOrAnotherNameGetsAnotherId() {
        ClusterJob job = submitted("flights", 1_700_000_000_000L);

        assertThat(submitted("flights", 1_700_000_000_001L).id()).isNotEqualTo(job.id());
        assertThat(submitted("flights2", 1_700_000_000_000L).id()).isNotEqualTo(job.id());
    }
}
