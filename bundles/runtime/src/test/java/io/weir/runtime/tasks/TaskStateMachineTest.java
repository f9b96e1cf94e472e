package io.weir.runtime.tasks;

import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Set;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

import static io.weir.runtime.tasks.TaskState.CANCELED;
import static io.weir.runtime.tasks.TaskState.DEPLOYING;
import static io.weir.runtime.tasks.TaskState.FAILED;
import static io.weir.runtime.tasks.TaskState.FINISHED;
import static io.weir.runtime.tasks.TaskState.FINISHING;
import static io.weir.runtime.tasks.TaskState.RUNNING;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class TaskStateMachineTest {
    /** The diagram of {@link TaskState}, written out by hand. */
    private static final Set<List<TaskState>> ALLOWED = Set.of(
            List.of(DEPLOYING, RUNNING), List.of(DEPLOYING, FAILED), List.of(DEPLOYING, CANCELED),
            List.of(RUNNING, FINISHING), List.of(RUNNING, FAILED), List.of(RUNNING, CANCELED),
            List.of(FINISHING, FINISHED), List.of(FINISHING, FAILED), List.of(FINISHING, CANCELED));

    @Test
    void tableAllowsExactlyTheTransitionsOfTheDiagram() {
        for (TaskState from : TaskState.values()) {
            for (TaskState to : TaskState.values()) {
                boolean expected = ALLOWED.contains(List.of(from, to));
                assertThat(from.canTransitionTo(to)).as(from + " -> " + to).isEqualTo(expected);
                if (!expected) {
                    assertThatThrownBy(() -> from.transitionTo(to)).as(from + " -> " + to).isInstanceOf(IllegalStateException.class)
                            .hasMessageContaining("illegal task state transition " + from + " -> " + to);
                }
            }
        }
        assertThat(List.of(FINISHED, FAILED, CANCELED)).allSatisfy(s -> assertThat(s.allowedTransitions()).isEmpty());
    }

    @Test
    void transitionsFollowTheLifecycleOfAFinishingTask() {
        TaskStateMachine m = new TaskStateMachine("job/src#0");
        assertThat(m.current()).isEqualTo(DEPLOYING);
        assertThat(m.transition(DEPLOYING, RUNNING)).isTrue();
        assertThat(m.transition(RUNNING, FINISHING)).isTrue();
        assertThat(m.transition(FINISHING, FINISHED)).isTrue();
        assertThat(m.current()).isEqualTo(FINISHED);
    }

    @Test
    void transitionNotInTheTableThrowsNamingTheTaskAndBothStates() {
        TaskStateMachine m = new TaskStateMachine("job/src#0");
        assertThatThrownBy(() -> m.transition(DEPLOYING, FINISHED)).isInstanceOf(IllegalStateException.class)
                .hasMessage("task job/src#0: illegal task state transition DEPLOYING -> FINISHED; allowed from DEPLOYING: [RUNNING, FAILED, CANCELED]");
        assertThat(m.current()).isEqualTo(DEPLOYING);
    }

    @Test
    void transitionFromAStateTheTaskIsNotInThrowsNamingAllThree() {
        TaskStateMachine m = new TaskStateMachine("job/src#0");
        assertThatThrownBy(() -> m.transition(FINISHING, FINISHED)).isInstanceOf(IllegalStateException.class)
                .hasMessage("task job/src#0: illegal task state transition FINISHING -> FINISHED: the task is in DEPLOYING, not FINISHING");
    }

    @Test
    void cancelBetweenTheDecisionToFinishAndTheTransitionWinsAndFinishingReportsFalse() {
        TaskStateMachine m = new TaskStateMachine("t");
        m.transition(DEPLOYING, RUNNING);
        m.transition(RUNNING, FINISHING);

        assertThat(m.terminate(CANCELED)).isEqualTo(FINISHING);

        assertThat(m.transition(FINISHING, FINISHED)).isFalse();
        assertThat(m.current()).isEqualTo(CANCELED);
    }

    @Test
    void terminalStatesAreNeverLeft() {
        for (TaskState terminal : List.of(FINISHED, FAILED, CANCELED)) {
            TaskStateMachine m = new TaskStateMachine("t");
            m.transition(DEPLOYING, RUNNING);
            m.transition(RUNNING, FINISHING);
            if (terminal == FINISHED) {
                m.transition(FINISHING, FINISHED);
            } else {
                m.terminate(terminal);
            }
            assertThat(m.terminate(CANCELED)).as(terminal + " then cancel").isNull();
            assertThat(m.terminate(FAILED)).as(terminal + " then fail").isNull();
            assertThat(m.transition(FINISHING, FINISHED)).as(terminal + " then finish").isFalse();
            assertThat(m.current()).isEqualTo(terminal);
        }
    }

    @Test
    void terminateOnlyAcceptsFailedOrCanceled() {
        TaskStateMachine m = new TaskStateMachine("job/src#0");
        assertThatThrownBy(() -> m.terminate(FINISHED)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("task job/src#0 can only be terminated as FAILED or CANCELED, not FINISHED");
    }

    /**
     * Stress: finish, fail and two cancels released together from FINISHING, repeated; exactly one
     * of them wins each time and the state is the winner's.
     */
    @Test
    void concurrentEndsHaveExactlyOneWinner() throws Exception {
        int rounds = 1_000;
        int[] wins = new int[TaskState.values().length];
        for (int i = 0; i < rounds; i++) {
            TaskStateMachine m = new TaskStateMachine("t");
            m.transition(DEPLOYING, RUNNING);
            m.transition(RUNNING, FINISHING);
            CyclicBarrier start = new CyclicBarrier(4);
            AtomicInteger winners = new AtomicInteger();
            TaskState[] winner = new TaskState[1];
            List<Supplier<TaskState>> attempts = List.of(
                    () -> m.transition(FINISHING, FINISHED) ? FINISHED : null,
                    () -> m.terminate(FAILED) != null ? FAILED : null,
                    () -> m.terminate(CANCELED) != null ? CANCELED : null,
                    () -> m.terminate(CANCELED) != null ? CANCELED : null);
            Thread[] threads = new Thread[attempts.size()];
            for (int t = 0; t < threads.length; t++) {
                Supplier<TaskState> attempt = attempts.get(t);
                threads[t] = new Thread(() -> {
                    try {
                        start.await(10, TimeUnit.SECONDS);
                    } catch (Exception e) {
                        throw new AssertionError(e);
                    }
                    TaskState won = attempt.get();
                    if (won != null) {
                        winners.incrementAndGet();
                        winner[0] = won;
                    }
                });
                threads[t].start();
            }
            for (Thread t : threads) {
                t.join(10_000);
            }
            assertThat(winners).as("round " + i).hasValue(1);
            assertThat(m.current()).as("round " + i).isEqualTo(winner[0]);
            wins[winner[0].ordinal()]++;
        }
        assertThat(wins[FINISHED.ordinal()] + wins[FAILED.ordinal()] + wins[CANCELED.ordinal()]).isEqualTo(rounds);
    }
}
