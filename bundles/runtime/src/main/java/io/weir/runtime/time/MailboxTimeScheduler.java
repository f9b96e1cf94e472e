package io.weir.runtime.time;

import io.weir.runtime.mailbox.Mail;
import io.weir.runtime.mailbox.TaskMailbox;

import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * Processing time for a task: the wall clock, and wake-ups as mails (so timers fire on the task thread, between
 * records). One pending wake-up at a time: a new request cancels the previous one.
 *
 * <p>Task thread only, except the scheduled action, which only puts a mail.
 */
public final class MailboxTimeScheduler implements ProcessingTimeScheduler {
    private final ScheduledExecutorService timers;
    private final TaskMailbox mailbox;
    private final String description;
    private final ThrowingRunnable onWakeUp;
    /** Task thread only. */
    private ScheduledFuture<?> pending;

    /** An action that may throw; failing it fails the task. */
    @FunctionalInterface
    public interface ThrowingRunnable {
        void run() throws Exception;
    }

    /**
     * @param timers the engine's timer executor
     * @param mailbox the task's mailbox
     * @param description names the mail (logs)
     * @param onWakeUp what the mail runs on the task thread
     */
    public MailboxTimeScheduler(ScheduledExecutorService timers, TaskMailbox mailbox, String description, ThrowingRunnable onWakeUp) {
        this.timers = timers;
        this.mailbox = mailbox;
        this.description = description;
        this.onWakeUp = onWakeUp;
    }

    @Override
    public long now() {
        return System.currentTimeMillis();
    }

    @Override
    public void wakeUpAt(long timestamp) {
        cancel();
        long delay = Math.max(0, timestamp - now());
        pending = timers.schedule(() -> mailbox.put(new Mail(description, onWakeUp::run)), delay, TimeUnit.MILLISECONDS);
    }

    @Override
    public void cancel() {
        if (pending != null) {
            pending.cancel(false);
            pending = null;
        }
    }
}
