package io.weir.ha.hazelcast.jobs;

import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** The leader's plan: orphans (unassigned or owner gone) to the least loaded live member, ties to the youngest (not the leader). */
class AssignmentsTest {
    private static final MemberRef A = new MemberRef("a", "http://a");
    private static final MemberRef B = new MemberRef("b", "http://b");
    private static final MemberRef C = new MemberRef("c", "http://c");

    private static ClusterJob job(String name, ClusterJobStatus status, String owner, long epoch) {
        return new ClusterJob(name, "{}", "/", Map.of(), status, owner, owner == null ? "" : "http://" + owner, epoch, 0, "");
    }

    @Test
    void jobsOfADeadOwnerGoToTheLeastLoadedSurvivors() {
        List<ClusterJob> jobs = List.of(job("j1", ClusterJobStatus.RUNNING, "a", 3), job("j2", ClusterJobStatus.RUNNING, "dead", 2),
                job("j3", ClusterJobStatus.RUNNING, "dead", 5), job("j4", ClusterJobStatus.RUNNING, "b", 1));
        List<Assignments.Assignment> plan = Assignments.plan(jobs, List.of(A, B, C));
        assertThat(plan).extracting(a -> a.job().name() + "->" + a.to().id()).containsExactly("j2->c", "j3->c");
        assertThat(plan.get(1).job().epoch()).isEqualTo(5);
    }

    @Test
    void unassignedJobsAreSpreadAndEndedJobsAreLeftAlone() {
        List<ClusterJob> jobs = List.of(job("x", ClusterJobStatus.RUNNING, null, 0), job("y", ClusterJobStatus.RUNNING, null, 0),
                job("z", ClusterJobStatus.FINISHED, "dead", 4));
        assertThat(Assignments.plan(jobs, List.of(A, B))).extracting(a -> a.job().name() + "->" + a.to().id())
                .containsExactly("x->b", "y->a");
    }

    @Test
    void aLoneJobGoesToTheYoungestMemberNotToTheLeader() {
        assertThat(Assignments.plan(List.of(job("j", ClusterJobStatus.RUNNING, null, 0)), List.of(A, B, C)))
                .extracting(a -> a.to().id()).containsExactly("c");
    }

    @Test
    void jobsOfLiveOwnersStay() {
        assertThat(Assignments.plan(List.of(job("j", ClusterJobStatus.RUNNING, "b", 1)), List.of(A, B))).isEmpty();
    }
}
