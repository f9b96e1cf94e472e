package io.weir.runtime.tasks;

import io.weir.api.source.PollStatus;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The task lifecycle under races, each interleaving forced with latches at a named point: a cancel
 * arriving while the task moves to FINISHED or FAILED, after it ended, twice, or before it started.
 * The task must end in exactly one terminal state and report it at most once (never a cancellation).
 */
class StreamTaskLifecycleTest {
    @TempDir
    Path dir;
    private final ScheduledExecutorService timers = Executors.newSingleThreadScheduledExecutor();

    @AfterEach
    void stopTimers() {
        timers.shutdownNow();
    }

    /** Waits for {@code latch} ignoring interrupts (a cancel interrupts the task thread), then restores the flag. */
    static void awaitIgnoringInterrupts(CountDownLatch latch) {
        boolean interrupted = false;
        while (true) {
            try {
                if (!latch.await(10, TimeUnit.SECONDS)) {
                    throw new AssertionError("latch not released within 10 s");
                }
                break;
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    private static void await(CountDownLatch latch) throws InterruptedException {
        assertThat(latch.await(10, TimeUnit.SECONDS)).as("reached the injection point within 10 s").isTrue();
    }

    @Test
    void boundedTaskRunsFinishesItsDataAndFinishesOnceTheFinalCheckpointCompletes() throws Exception {
        SourceTaskHarness h = new SourceTaskHarness(dir, timers, new SourceTaskHarness.Hooks()).start();
        h.awaitEnd();

        assertThat(h.task().state()).isEqualTo(TaskState.FINISHED);
        assertThat(h.events()).containsExactly("running", "finishedData", "ack 1", "finished");
    }

    @Test
    void cancelWhileTheFinalCheckpointIsDeliveredEndsCanceledAndNeverReportsFinished() throws Exception {
        CountDownLatch committing = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        SourceTaskHarness h = new SourceTaskHarness(dir, timers, new SourceTaskHarness.Hooks() {
            @Override
            void onCheckpointComplete(long checkpointId) {
                committing.countDown();
                awaitIgnoringInterrupts(release); // then carries on towards FINISHED as if the cancel came a moment later
            }
        }).start();
        await(committing);

        h.task().cancel();
        release.countDown();
        h.awaitEnd();

        assertThat(h.task().state()).isEqualTo(TaskState.CANCELED);
        assertThat(h.terminalReports()).isEmpty();
        assertThat(h.events()).containsExactly("running", "finishedData", "ack 1");
    }

    @Test
    void cancelAfterTheTaskFinishedLeavesItFinishedAndDoesNotInterruptIt() throws Exception {
        CountDownLatch reporting = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        AtomicBoolean interruptedAfterCancel = new AtomicBoolean();
        SourceTaskHarness h = new SourceTaskHarness(dir, timers, new SourceTaskHarness.Hooks() {
            @Override
            void onFinishedReported() {
                reporting.countDown();
                awaitIgnoringInterrupts(release);
                // a late interrupt would hit the operators' close() (e.g. a sink's NIO channel)
                interruptedAfterCancel.set(Thread.currentThread().isInterrupted());
            }
        }).start();
        await(reporting);

        h.task().cancel();
        release.countDown();
        h.awaitEnd();

        assertThat(h.task().state()).isEqualTo(TaskState.FINISHED);
        assertThat(h.terminalReports()).containsExactly("finished");
        assertThat(interruptedAfterCancel).as("task thread interrupted by a cancel after it finished").isFalse();
    }

    @Test
    void listenerFailingOnFinishedDoesNotTurnTheFinishedTaskIntoAFailedOne() throws Exception {
        SourceTaskHarness h = new SourceTaskHarness(dir, timers, new SourceTaskHarness.Hooks() {
            @Override
            void onFinishedReported() {
                throw new IllegalStateException("job master gone");
            }
        }).start();
        h.awaitEnd();

        assertThat(h.task().state()).isEqualTo(TaskState.FINISHED);
        assertThat(h.terminalReports()).containsExactly("finished");
    }

    @Test
    void cancelWhileTheTaskIsFailingEndsCanceledAndReportsNoFailure() throws Exception {
        CountDownLatch polling = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        SourceTaskHarness h = new SourceTaskHarness(dir, timers, new SourceTaskHarness.Hooks() {
            @Override
            PollStatus onPoll() throws IOException {
                polling.countDown();
                awaitIgnoringInterrupts(release);
                throw new IOException("input file vanished");
            }
        }).start();
        await(polling);

        h.task().cancel();
        release.countDown();
        h.awaitEnd();

        assertThat(h.task().state()).isEqualTo(TaskState.CANCELED);
        assertThat(h.events()).containsExactly("running");
    }

    @Test
    void cancelWhileTheFailureIsReportedKeepsTheTaskFailedAndReportedOnce() throws Exception {
        CountDownLatch reporting = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        SourceTaskHarness h = new SourceTaskHarness(dir, timers, new SourceTaskHarness.Hooks() {
            @Override
            PollStatus onPoll() throws IOException {
                throw new IOException("input file vanished");
            }

            @Override
            void onFailedReported() {
                reporting.countDown();
                awaitIgnoringInterrupts(release);
            }
        }).start();
        await(reporting);

        h.task().cancel();
        release.countDown();
        h.awaitEnd();

        assertThat(h.task().state()).isEqualTo(TaskState.FAILED);
        assertThat(h.terminalReports()).containsExactly("failed: input file vanished");
    }

    @Test
    void secondCancelOfARunningTaskChangesNothing() throws Exception {
        CountDownLatch polled = new CountDownLatch(1);
        SourceTaskHarness h = new SourceTaskHarness(dir, timers, new SourceTaskHarness.Hooks() {
            @Override
            PollStatus onPoll() {
                polled.countDown();
                return PollStatus.NOTHING_AVAILABLE;
            }
        }).start();
        await(polled);

        h.task().cancel();
        h.task().cancel();
        h.awaitEnd();
        h.task().cancel();

        assertThat(h.task().state()).isEqualTo(TaskState.CANCELED);
        assertThat(h.events()).containsExactly("running");
    }

    @Test
    void cancelBeforeTheTaskThreadStartsNeverDeploysIt() throws Exception {
        AtomicBoolean deployed = new AtomicBoolean();
        SourceTaskHarness h = new SourceTaskHarness(dir, timers, new SourceTaskHarness.Hooks() {
            @Override
            void onDeploy() {
                deployed.set(true);
            }
        });

        h.task().cancel();
        h.start().awaitEnd();

        assertThat(h.task().state()).isEqualTo(TaskState.CANCELED);
        assertThat(deployed).as("operators initialized after the cancel").isFalse();
        assertThat(h.events()).isEmpty();
    }

    @Test
    void cancelWhileDeployingEndsCanceledWithoutReportingRunning() throws Exception {
        CountDownLatch deploying = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        SourceTaskHarness h = new SourceTaskHarness(dir, timers, new SourceTaskHarness.Hooks() {
            @Override
            void onDeploy() {
                deploying.countDown();
                awaitIgnoringInterrupts(release);
                Thread.interrupted(); // a deploy step that swallowed the interrupt: the state alone must stop the task
            }
        }).start();
        await(deploying);

        h.task().cancel();
        release.countDown();
        h.awaitEnd();

        assertThat(h.task().state()).isEqualTo(TaskState.CANCELED);
        assertThat(h.events()).isEmpty();
    }

    /**
     * Stress: a cancel released while the final checkpoint is being delivered, after a random spin,
     * so it lands before, during or after the move to FINISHED (or FAILED). Whatever the
     * interleaving: one terminal state, reported at most once and consistently with the state.
     */
    @Test
    void cancelRacingWithTheEndOfTheTaskAlwaysLeavesOneTerminalStateReportedAtMostOnce() throws Exception {
        java.util.Random random = new java.util.Random(42);
        int[] outcomes = new int[TaskState.values().length];
        for (int i = 0; i < 300; i++) {
            boolean failAtTheEnd = i % 2 == 1;
            int spins = random.nextInt(20_000);
            CountDownLatch ending = new CountDownLatch(1);
            SourceTaskHarness h = new SourceTaskHarness(dir.resolve("run" + i), timers, new SourceTaskHarness.Hooks() {
                @Override
                void onCheckpointComplete(long checkpointId) {
                    ending.countDown();
                    if (failAtTheEnd) {
                        throw new IllegalStateException("commit failed");
                    }
                }
            });
            Thread canceller = new Thread(() -> {
                awaitIgnoringInterrupts(ending);
                for (int s = 0; s < spins; s++) {
                    Thread.onSpinWait();
                }
                h.task().cancel();
            });
            canceller.start();
            h.start();
            canceller.join(10_000);
            h.awaitEnd();

            TaskState end = h.task().state();
            outcomes[end.ordinal()]++;
            List<String> reports = h.terminalReports();
            String where = "iteration " + i + " (" + (failAtTheEnd ? "failing" : "finishing") + ", " + spins + " spins): " + h.events();
            assertThat(end.isTerminal()).as(where).isTrue();
            switch (end) {
                case FINISHED -> assertThat(reports).as(where).containsExactly("finished");
                case FAILED -> assertThat(reports).as(where).singleElement().satisfies(r -> assertThat(r).startsWith("failed: "));
                case CANCELED -> assertThat(reports).as(where).isEmpty();
                default -> throw new AssertionError(where);
            }
            assertThat(end).as(where).isNotEqualTo(failAtTheEnd ? TaskState.FINISHED : TaskState.FAILED);
            assertThat(h.events().subList(0, 2)).as(where).containsExactly("running", "finishedData");
        }
        org.slf4j.LoggerFactory.getLogger(getClass()).info("outcomes: finished {}, failed {}, canceled {}",
                outcomes[TaskState.FINISHED.ordinal()], outcomes[TaskState.FAILED.ordinal()], outcomes[TaskState.CANCELED.ordinal()]);
    }
}
