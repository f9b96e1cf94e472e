package io.weir.runtime.mailbox;

import org.junit.jupiter.api.Test;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;

/** The wake-up signal of {@link TaskMailbox}, which takes the lock only when the task thread waits. */
class TaskMailboxTest {
    /** Longer than any test here may take: a wait that lasts this long lost its wake-up. */
    private static final long LOST = TimeUnit.SECONDS.toNanos(60);

    @Test
    void wakeUpGivenBeforeTheWaitMakesTheWaitReturnAtOnce() throws Exception {
        TaskMailbox mailbox = new TaskMailbox();
        mailbox.wakeUp();
        long start = System.nanoTime();
        mailbox.waitForMailOrSignal(LOST);
        assertThat(System.nanoTime() - start).as("the remembered signal ends the wait").isLessThan(LOST / 2);
    }

    @Test
    void aWaitClearsTheSignalSoTheNextWaitWaitsForItsTimeout() throws Exception {
        TaskMailbox mailbox = new TaskMailbox();
        mailbox.wakeUp();
        mailbox.waitForMailOrSignal(LOST);
        long timeout = TimeUnit.MILLISECONDS.toNanos(20);
        long start = System.nanoTime();
        mailbox.waitForMailOrSignal(timeout);
        assertThat(System.nanoTime() - start).as("no signal left: waits the full timeout").isGreaterThanOrEqualTo(timeout);
    }

    @Test
    void wakeUpFromAnotherThreadEndsAWaitInProgress() throws Exception {
        TaskMailbox mailbox = new TaskMailbox();
        CountDownLatch entered = new CountDownLatch(1);
        AtomicReference<Long> waited = new AtomicReference<>();
        Thread waiter = new Thread(() -> {
            try {
                entered.countDown();
                long start = System.nanoTime();
                mailbox.waitForMailOrSignal(LOST);
                waited.set(System.nanoTime() - start);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        waiter.start();
        try {
            entered.await();
            // whether the waker runs before or inside the wait, the wait must end
            mailbox.wakeUp();
            waiter.join(TimeUnit.NANOSECONDS.toMillis(LOST) * 2);
            assertThat(waited.get()).as("the waiter returned").isNotNull().isLessThan(LOST / 2);
        } finally {
            waiter.interrupt();
            waiter.join();
        }
    }

    /**
     * A ping-pong of 20,000 hand-overs between a task thread that waits until it sees the next token and a waker
     * that publishes a token and calls {@link TaskMailbox#wakeUp()}: a lost wake-up leaves the task thread waiting
     * for a full 10 s timeout, which the test counts (each token is published only after the previous one
     * was seen, so every wake-up races with a wait that is starting or in progress).
     */
    @Test
    void noWakeUpIsLostWhenWakeUpsRaceWithWaits() throws Exception {
        TaskMailbox mailbox = new TaskMailbox();
        int tokens = 20_000;
        long lost = TimeUnit.SECONDS.toNanos(10);
        AtomicInteger published = new AtomicInteger();
        AtomicInteger seen = new AtomicInteger();
        AtomicInteger fullTimeouts = new AtomicInteger();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        Thread task = new Thread(() -> {
            try {
                for (int i = 1; i <= tokens; i++) {
                    while (published.get() < i) {
                        long start = System.nanoTime();
                        mailbox.waitForMailOrSignal(lost);
                        if (System.nanoTime() - start >= lost) {
                            fullTimeouts.incrementAndGet();
                        }
                    }
                    seen.set(i);
                }
            } catch (Throwable t) {
                failure.set(t);
            }
        }, "task");
        Thread waker = new Thread(() -> {
            for (int i = 1; i <= tokens && failure.get() == null; i++) {
                published.set(i);
                mailbox.wakeUp();
                while (seen.get() < i && failure.get() == null && task.isAlive()) {
                    Thread.yield();
                }
            }
        }, "waker");
        task.start();
        waker.start();
        try {
            waker.join();
            task.join();
        } finally {
            task.interrupt();
            waker.interrupt();
        }
        assertThat(failure.get()).isNull();
        assertThat(seen.get()).isEqualTo(tokens);
        assertThat(fullTimeouts.get()).as("waits that lost their wake-up").isZero();
    }

    @Test
    void putWakesAWaitingTaskThreadAndTheMailIsTaken() throws Exception {
        TaskMailbox mailbox = new TaskMailbox();
        CountDownLatch entered = new CountDownLatch(1);
        AtomicReference<Mail> taken = new AtomicReference<>();
        Thread waiter = new Thread(() -> {
            try {
                entered.countDown();
                mailbox.waitForMailOrSignal(LOST);
                taken.set(mailbox.tryTake());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        waiter.start();
        try {
            entered.await();
            Mail mail = new Mail("test mail", () -> { });
            assertThat(mailbox.put(mail)).isTrue();
            waiter.join(TimeUnit.NANOSECONDS.toMillis(LOST) * 2);
            assertThat(taken.get()).isSameAs(mail);
            assertThat(mailbox.hasMail()).isFalse();
        } finally {
            waiter.interrupt();
            waiter.join();
        }
    }
}
