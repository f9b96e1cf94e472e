package io.weir.runtime.mailbox;

/**
 * The task thread's loop (PROTOCOL.md §3): run every pending mail, then one step of the default
 * action (process one record, or poll the source once); when the default action has nothing to do,
 * wait for a mail or a wake-up signal. Mails and records therefore never interleave inside a record,
 * and a checkpoint needs no locks.
 *
 * <p>Task thread only, except {@link #stop()}.
 */
public final class MailboxProcessor {

    /** One step of the task's work. */
    @FunctionalInterface
    public interface DefaultAction {
        /**
         * @return 0 if it did work (call again at once), or the ns to wait for a mail or signal before
         *         calling again because nothing was available
         * @throws Exception fails the task
         */
        long runDefaultAction() throws Exception;
    }

    /** Loop steps per {@link #runSteps} call (see {@link #runMailboxLoop} for why the loop returns at all). */
    static final int STEPS_PER_CALL = 1024;

    private final TaskMailbox mailbox;
    private final DefaultAction defaultAction;
    /** Written by any thread, read by the task thread. */
    private volatile boolean running = true;
    /** Task thread only: whether the default action is suspended (e.g. input finished). */
    private boolean defaultActionSuspended;

    /**
     * @param mailbox the task's mailbox
     * @param defaultAction the record-processing step
     */
    public MailboxProcessor(TaskMailbox mailbox, DefaultAction defaultAction) {
        this.mailbox = mailbox;
        this.defaultAction = defaultAction;
    }

    /**
     * Runs until {@link #stop()} is called or a mail or the default action throws.
     *
     * <p>The loop itself only calls {@link #runSteps} again and again; the work happens there. Why: HotSpot moves a
     * running frame to better compiled code only from the interpreter (on-stack replacement). A loop that never
     * returns and whose compiled code was discarded (a class check failed, e.g. when the first checkpoint ran a new
     * path) continues in a C1-compiled OSR frame with profiling for the rest of the task's life, where every step
     * updates profile counters shared with the other task threads running the same code; that was the slow mode of
     * issue 13 (the same build at half the records/s for a whole run). A method that returns every
     * {@value #STEPS_PER_CALL} steps is entered anew, so it always runs the current compiled code.
     *
     * @throws Exception from a mail or the default action (the task fails with it)
     */
    public void runMailboxLoop() throws Exception {
        while (running) {
            runSteps();
        }
    }

    /**
     * Up to {@value #STEPS_PER_CALL} loop steps: every pending mail, then one step of the default action (or a wait
     * when it has nothing to do).
     */
    private void runSteps() throws Exception {
        for (int step = 0; step < STEPS_PER_CALL && running; step++) {
            Mail mail;
            while ((mail = mailbox.tryTake()) != null) {
                mail.action().run();
                if (!running) {
                    return;
                }
            }
            if (defaultActionSuspended) {
                mailbox.waitForMailOrSignal(Long.MAX_VALUE);
                continue;
            }
            long waitNanos = defaultAction.runDefaultAction();
            if (waitNanos > 0 && !mailbox.hasMail()) {
                mailbox.waitForMailOrSignal(waitNanos);
            }
        }
    }

    /** Makes the loop process only mails from now on (task thread). */
    public void suspendDefaultAction() {
        defaultActionSuspended = true;
    }

    /** Ends the loop after the current step; thread-safe. */
    public void stop() {
        running = false;
        mailbox.wakeUp();
    }
}
