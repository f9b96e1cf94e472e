package io.weir.console.poll;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Where a request about one job goes: the named node, or for a cluster job whose named member is down, the configured
 * member the Jobs table lists it through (seen with a 3-member cluster: the member a job page was opened through was
 * killed, the job moved to an unconfigured member, and the page answered 502 "not reachable" for good).
 */
class JobRouteTest {
    private static final String MOVED = "0a5308c779d530ae9de740c70b922a54";
    private static final String SOLO = "ebb273ac98fa18606f021d637e6303e0";

    private static NodeStatus node(String name, boolean up) {
        return new NodeStatus(name, "http://127.0.0.1:1840" + name.length(), up, up ? null : "Connection refused", null, 1L);
    }

    private static JobRow row(String node, String id, String runsOn) {
        return new JobRow(node, id, "job-" + id.substring(0, 4), "RUNNING", 1L, 10L, 2, 7L, 100L, 3L, 1844L, 200, 0, 0, 2000, runsOn);
    }

    private static final Snapshot N1_DOWN = new Snapshot(2L,
            List.of(node("n1", false), node("n2", true), node("solo", true)),
            List.of(row("n2", MOVED, "http://127.0.0.1:18403"), row("solo", SOLO, null)));

    @Test
    void aClusterJobAskedThroughADownMemberGoesThroughTheMemberThatListsIt() {
        assertThat(JobRoute.nodeFor(N1_DOWN, "n1", MOVED)).isEqualTo("n2");
    }

    @Test
    void aNodeThatIsUpIsAskedItself() {
        Snapshot allUp = new Snapshot(2L, List.of(node("n1", true), node("n2", true)), List.of(row("n2", MOVED, "http://127.0.0.1:18403")));

        assertThat(JobRoute.nodeFor(allUp, "n1", MOVED)).isEqualTo("n1");
    }

    @Test
    void aStandaloneJobIsNeverAskedElsewhere() {
        assertThat(JobRoute.nodeFor(N1_DOWN, "n1", SOLO)).isEqualTo("n1");
    }

    @Test
    void aNameIsNotRerouted() {
        assertThat(JobRoute.nodeFor(N1_DOWN, "n1", "job-0a53")).isEqualTo("n1");
    }

    @Test
    void beforeTheFirstPollTheNamedNodeIsAsked() {
        assertThat(JobRoute.nodeFor(Snapshot.EMPTY, "n1", MOVED)).isEqualTo("n1");
    }
}
