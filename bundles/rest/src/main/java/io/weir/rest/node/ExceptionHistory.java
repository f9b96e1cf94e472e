package io.weir.rest.node;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;

/**
 * The failures of one job that the node saw: each cause of a restart and the cause a job failed
 * with, newest first, at most {@link #DEFAULT_CAPACITY} (older ones are dropped and counted, so the
 * REST API can say the history is truncated). Served by {@code GET /jobs/:id/exceptions}.
 *
 * <p>Thread-safe: written by the engine's job master thread through {@link NodeJob}'s listener and by
 * the thread completing the job's result, read by REST request threads; every method synchronizes on
 * {@code this}.
 */
public final class ExceptionHistory {
    /** Failures kept per job. */
    public static final int DEFAULT_CAPACITY = 16;

    private final int capacity;
    /** Guarded by {@code this}; newest first. */
    private final ArrayDeque<Failure> entries = new ArrayDeque<>();
    /** Guarded by {@code this}; failures dropped because the history was full. */
    private long dropped;

    /** @param capacity failures kept, at least 1 */
    public ExceptionHistory(int capacity) {
        if (capacity < 1) {
            throw new IllegalArgumentException("exception history capacity must be at least 1, got " + capacity);
        }
        this.capacity = capacity;
    }

    /**
     * One failure.
     *
     * @param exceptionName the class name of the cause
     * @param message its message, or null
     * @param stacktrace its stack trace with causes, as {@link Throwable#printStackTrace()} writes it
     * @param timestamp when the node learned of it, ms since the epoch
     * @param restart whether the job restarted after it (false: the job failed for good)
     */
    public record Failure(String exceptionName, String message, String stacktrace, long timestamp, boolean restart) {
    }

    /**
     * A consistent copy.
     *
     * @param entries newest first
     * @param truncated whether older failures were dropped
     */
    public record Snapshot(List<Failure> entries, boolean truncated) {
        /** Copies {@code entries}. */
        public Snapshot {
            entries = List.copyOf(entries);
        }
    }

    /**
     * @param cause what failed the job; null is ignored
     * @param now ms since the epoch
     * @param restart whether the job restarts after it
     */
    synchronized void add(Throwable cause, long now, boolean restart) {
        if (cause == null) {
            return;
        }
        StringWriter trace = new StringWriter();
        cause.printStackTrace(new PrintWriter(trace));
        entries.addFirst(new Failure(cause.getClass().getName(), cause.getMessage(), trace.toString(), now, restart));
        while (entries.size() > capacity) {
            entries.removeLast();
            dropped++;
        }
    }

    /** @return the failures, newest first */
    public synchronized Snapshot snapshot() {
        return new Snapshot(new ArrayList<>(entries), dropped > 0);
    }
}
