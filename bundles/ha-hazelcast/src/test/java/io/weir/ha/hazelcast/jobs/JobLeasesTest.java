package io.weir.ha.hazelcast.jobs;

import org.junit.jupiter.api.Test;

import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;

class JobLeasesTest {
    private final AtomicLong now = new AtomicLong(1_000);
    private final JobLeases leases = new JobLeases(now::get);

    @Test
    void aLeaseNoLongerHoldsPastItsDeadlineEvenBeforeItIsReleased() {
        leases.hold("j", 4, 3_000);
        assertThat(leases.holds("j", 4)).isTrue();
        assertThat(leases.holds("j", 3)).as("another epoch").isFalse();
        now.set(3_000); // a paused process wakes up: the watchdog has not run yet
        assertThat(leases.holds("j", 4)).isFalse();
        assertThat(leases.epochOf("j")).as("still named until released").isEqualTo(4);
    }

    @Test
    void aRenewalMovesTheDeadlineOnlyForwardAndOnlyForItsEpoch() {
        leases.hold("j", 4, 3_000);
        leases.extend("j", 4, 5_000);
        leases.extend("j", 4, 2_000);
        leases.extend("j", 3, 9_000);
        now.set(4_999);
        assertThat(leases.holds("j", 4)).isTrue();
        now.set(5_000);
        assertThat(leases.holds("j", 4)).isFalse();
        leases.release("j", 3);
        assertThat(leases.find("j")).hasValue(4);
        leases.release("j", 4);
        assertThat(leases.find("j")).isEmpty();
    }
}
