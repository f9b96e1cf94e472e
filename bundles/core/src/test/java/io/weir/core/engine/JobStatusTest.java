package io.weir.core.engine;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.util.List;
import java.util.Set;

import static io.weir.core.engine.JobStatus.CANCELED;
import static io.weir.core.engine.JobStatus.CREATED;
import static io.weir.core.engine.JobStatus.FAILED;
import static io.weir.core.engine.JobStatus.FINISHED;
import static io.weir.core.engine.JobStatus.RESTARTING;
import static io.weir.core.engine.JobStatus.RUNNING;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class JobStatusTest {
    /** The diagram, written out by hand: every allowed (from, to) pair and nothing else. */
    private static final Set<List<JobStatus>> ALLOWED = Set.of(
            List.of(CREATED, RUNNING), List.of(CREATED, RESTARTING), List.of(CREATED, FAILED), List.of(CREATED, CANCELED),
            List.of(RUNNING, RESTARTING), List.of(RUNNING, FINISHED), List.of(RUNNING, FAILED), List.of(RUNNING, CANCELED),
            List.of(RESTARTING, RUNNING), List.of(RESTARTING, FAILED), List.of(RESTARTING, CANCELED));

    @Test
    void everyPairOfStatusesIsAllowedExactlyWhenTheDiagramHasIt() {
        int checked = 0;
        for (JobStatus from : JobStatus.values()) {
            for (JobStatus to : JobStatus.values()) {
                boolean expected = ALLOWED.contains(List.of(from, to));
                assertThat(from.canTransitionTo(to)).as(from + " -> " + to).isEqualTo(expected);
                if (expected) {
                    assertThat(from.transitionTo(to)).isSameAs(to);
                } else {
                    assertThatThrownBy(() -> from.transitionTo(to)).as(from + " -> " + to)
                            .isInstanceOf(IllegalStateException.class)
                            .hasMessageContaining("illegal job status transition " + from + " -> " + to);
                }
                checked++;
            }
        }
        assertThat(checked).isEqualTo(36);
    }

    @ParameterizedTest
    @EnumSource(value = JobStatus.class, names = {"FINISHED", "FAILED", "CANCELED"})
    void terminalStatusCannotBeLeft(JobStatus terminal) {
        assertThat(terminal.isTerminal()).isTrue();
        assertThat(terminal.allowedTransitions()).isEmpty();
        assertThatThrownBy(() -> terminal.transitionTo(RUNNING))
                .hasMessage("illegal job status transition " + terminal + " -> RUNNING (" + terminal + " is terminal)");
    }

    @ParameterizedTest
    @EnumSource(value = JobStatus.class, names = {"CREATED", "RUNNING", "RESTARTING"})
    void everyLiveStatusCanFailOrBeCanceledButNotReturnToCreated(JobStatus live) {
        assertThat(live.isTerminal()).isFalse();
        assertThat(live.canTransitionTo(FAILED)).isTrue();
        assertThat(live.canTransitionTo(CANCELED)).isTrue();
        assertThat(live.canTransitionTo(CREATED)).isFalse();
    }

    @Test
    void illegalTransitionNamesBothStatusesAndWhatIsAllowed() {
        assertThatThrownBy(() -> RESTARTING.transitionTo(FINISHED))
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("illegal job status transition RESTARTING -> FINISHED; allowed from RESTARTING: [RUNNING, FAILED, CANCELED]");
    }

    @Test
    void aStatusIsNotATransitionToItself() {
        for (JobStatus s : JobStatus.values()) {
            assertThat(s.canTransitionTo(s)).as(s.toString()).isFalse();
        }
    }

    @Test
    void restartCycleOfAJobThatFailsTwiceAndThenFinishesFollowsTheDiagram() {
        JobStatus s = CREATED;
        for (JobStatus next : List.of(RESTARTING, RUNNING, RESTARTING, RUNNING, FINISHED)) {
            s = s.transitionTo(next);
        }
        assertThat(s).isEqualTo(FINISHED);
    }

    @Test
    void allowedTransitionsCannotBeModified() {
        assertThatThrownBy(() -> RUNNING.allowedTransitions().add(CREATED)).isInstanceOf(UnsupportedOperationException.class);
    }

    @Test
    void nullTargetIsRejectedNamingTheSourceStatus() {
        assertThatThrownBy(() -> RUNNING.transitionTo(null)).isInstanceOf(NullPointerException.class)
                .hasMessage("job status transition from RUNNING to null");
    }
}
