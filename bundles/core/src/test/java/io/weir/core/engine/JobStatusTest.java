package io.weir.core.engine;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.util.List;
import java.util.Set;

import static io.weir.core.engine.JobStatus.CANCELED;
import static io.weir.core.engine.JobStatus.CANCELLING;
import static io.weir.core.engine.JobStatus.FAILING;
import static io.weir.core.engine.JobStatus.SUSPENDED;
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
            List.of(CREATED, RUNNING), List.of(CREATED, RESTARTING), List.of(CREATED, FAILING), List.of(CREATED, CANCELLING),
            List.of(CREATED, SUSPENDED),
            List.of(RUNNING, RESTARTING), List.of(RUNNING, FINISHED), List.of(RUNNING, FAILING), List.of(RUNNING, CANCELLING),
            List.of(RUNNING, SUSPENDED),
            List.of(RESTARTING, RUNNING), List.of(RESTARTING, FAILING), List.of(RESTARTING, CANCELLING),
            List.of(RESTARTING, SUSPENDED),
            List.of(FAILING, FAILED), List.of(CANCELLING, CANCELED));

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
        assertThat(checked).isEqualTo(81);
    }

    @ParameterizedTest
    @EnumSource(value = JobStatus.class, names = {"FINISHED", "FAILED", "CANCELED", "SUSPENDED"})
    void terminalStatusCannotBeLeft(JobStatus terminal) {
        assertThat(terminal.isTerminal()).isTrue();
        assertThat(terminal.isGloballyTerminal()).isEqualTo(terminal != SUSPENDED);
        assertThat(terminal.allowedTransitions()).isEmpty();
        assertThatThrownBy(() -> terminal.transitionTo(RUNNING))
                .hasMessage("illegal job status transition " + terminal + " -> RUNNING (" + terminal + " is terminal)");
    }

    @ParameterizedTest
    @EnumSource(value = JobStatus.class, names = {"CREATED", "RUNNING", "RESTARTING"})
    void everyLiveStatusFailsOrIsCanceledThroughItsTransientStatusOrIsSuspended(JobStatus live) {
        assertThat(live.isTerminal()).isFalse();
        assertThat(live.canTransitionTo(FAILING)).isTrue();
        assertThat(live.canTransitionTo(CANCELLING)).isTrue();
        assertThat(live.canTransitionTo(SUSPENDED)).isTrue();
        assertThat(live.canTransitionTo(FAILED)).isFalse();
        assertThat(live.canTransitionTo(CANCELED)).isFalse();
        assertThat(live.canTransitionTo(CREATED)).isFalse();
    }

    @ParameterizedTest
    @EnumSource(value = JobStatus.class, names = {"FAILING", "CANCELLING"})
    void transientStatusesOnlyLeadToTheirEnd(JobStatus ending) {
        assertThat(ending.isTerminal()).isFalse();
        assertThat(ending.allowedTransitions()).containsExactly(ending == FAILING ? FAILED : CANCELED);
    }

    @Test
    void illegalTransitionNamesBothStatusesAndWhatIsAllowed() {
        assertThatThrownBy(() -> RESTARTING.transitionTo(FINISHED))
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("illegal job status transition RESTARTING -> FINISHED; allowed from RESTARTING: [RUNNING, FAILING, CANCELLING, SUSPENDED]");
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
