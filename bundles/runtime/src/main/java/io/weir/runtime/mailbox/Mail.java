package io.weir.runtime.mailbox;

/**
 * An action to run on a task's thread, between two records (PROTOCOL.md §3).
 *
 * @param description what it does, for logs and errors (e.g. "trigger checkpoint 7")
 * @param action the action; an exception from it fails the task
 */
public record Mail(String description, ThrowingRunnable action) {

    /** A runnable that may throw. */
    @FunctionalInterface
    public interface ThrowingRunnable {
        /** Runs the action. */
        void run() throws Exception;
    }
}
