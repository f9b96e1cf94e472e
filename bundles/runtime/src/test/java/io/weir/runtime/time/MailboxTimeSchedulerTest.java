package io.weir.runtime.time;

import io.weir.runtime.mailbox.Mail;
import io.weir.runtime.mailbox.TaskMailbox;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/** Processing-time wake-ups arrive as mails (fired on the task thread), one pending at a time. */
class MailboxTimeSchedulerTest {
    private final ScheduledExecutorService timers = Executors.newSingleThreadScheduledExecutor();

    @AfterEach
    void stop() {
        timers.shutdownNow();
    }

    @Test
    void wakeUpArrivesAsAMailAtOrAfterItsTime() throws Exception {
        TaskMailbox mailbox = new TaskMailbox();
        AtomicInteger fired = new AtomicInteger();
        MailboxTimeScheduler clock = new MailboxTimeScheduler(timers, mailbox, "timers of op", fired::incrementAndGet);
        long at = clock.now() + 30;
        clock.wakeUpAt(at);
        // polled every millisecond: a mail put before its time would be seen before it (no check that can lose a
        // race with a loaded machine's scheduling, as "no mail right after the request" did)
        AtomicLong seenAt = new AtomicLong();
        await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(1)).until(() -> {
            if (!mailbox.hasMail()) {
                return false;
            }
            seenAt.set(System.currentTimeMillis());
            return true;
        });
        assertThat(seenAt.get()).isGreaterThanOrEqualTo(at);
        Mail mail = mailbox.tryTake();
        assertThat(mail.description()).isEqualTo("timers of op");
        assertThat(fired).hasValue(0); // nothing runs off the task thread
        mail.action().run();
        assertThat(fired).hasValue(1);
    }

    @Test
    void aNewRequestReplacesThePendingOneAndCancelDropsIt() throws Exception {
        TaskMailbox mailbox = new TaskMailbox();
        MailboxTimeScheduler clock = new MailboxTimeScheduler(timers, mailbox, "timers", () -> { });
        clock.wakeUpAt(clock.now() + 60_000);
        clock.wakeUpAt(clock.now()); // earlier: replaces the first
        await().atMost(Duration.ofSeconds(10)).until(mailbox::hasMail);
        mailbox.tryTake();
        clock.wakeUpAt(clock.now() + 50);
        clock.cancel();
        // a marker scheduled after the cancelled wake-up's time: once it ran, the wake-up would have too
        timers.schedule(() -> { }, 100, TimeUnit.MILLISECONDS).get();
        assertThat(mailbox.hasMail()).isFalse();
    }
}
