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

    /**
     * The zombie of issue 9: after kill -CONT the renewer may run before the watchdog, and its RENEW can be answered "ok" by
     * the woken process's own stale copy of the job store (seen in HaFailoverIT: the woken node still saw 2 of 3 members
     * and even reclaimed the job). That answer must not revive the lapsed lease.
     */
    @Test
    void aRenewalAnsweredAfterTheDeadlineDoesNotReviveTheLease() {
        leases.hold("j", 4, 3_000);
        now.set(8_700); // woke from a 5.7 s pause
        leases.extend("j", 4, 8_600 + 2_000); // a renewal sent after waking, answered by a stale copy
        assertThat(leases.holds("j", 4)).isFalse();
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
