package io.weir.coordinator;

import java.util.ArrayDeque;
import java.util.PriorityQueue;
import java.util.concurrent.RejectedExecutionException;

/**
 * A {@link CheckpointTimer} driven by the test thread: a fake clock and task queues that run only in
 * {@link #runPending()} and {@link #advance(long)}. Test thread only.
 */
final class ManualCheckpointTimer implements CheckpointTimer {
    private final class Scheduled implements Cancellable, Comparable<Scheduled> {
        final long due;
        final long seq;
        final Runnable task;
        boolean cancelled;

        Scheduled(long due, long seq, Runnable task) {
            this.due = due;
            this.seq = seq;
            this.task = task;
        }

        @Override
        public void cancel() {
            cancelled = true;
        }

        @Override
        public int compareTo(Scheduled o) {
            return due != o.due ? Long.compare(due, o.due) : Long.compare(seq, o.seq);
        }
    }

    private long now;
    private long seq;
    private boolean shutdown;
    private final ArrayDeque<Runnable> immediate = new ArrayDeque<>();
    private final PriorityQueue<Scheduled> scheduled = new PriorityQueue<>();

    ManualCheckpointTimer(long startMs) {
        this.now = startMs;
    }

    @Override
    public long now() {
        return now;
    }

    @Override
    public void execute(Runnable task) {
        if (shutdown) {
            throw new RejectedExecutionException("manual timer shut down");
        }
        immediate.add(task);
    }

    @Override
    public Cancellable schedule(Runnable task, long delayMs) {
        if (shutdown) {
            throw new RejectedExecutionException("manual timer shut down");
        }
        Scheduled s = new Scheduled(now + Math.max(0, delayMs), seq++, task);
        scheduled.add(s);
        return s;
    }

    @Override
    public boolean isTimerThread() {
        return true;
    }

    @Override
    public void shutdown() {
        shutdown = true;
        scheduled.clear();
    }

    @Override
    public boolean awaitTermination(long timeoutMs) {
        runPending();
        return true;
    }

    /** Runs every queued task and every scheduled task that is due, including ones they submit. */
    void runPending() {
        while (true) {
            Runnable next = immediate.poll();
            if (next != null) {
                next.run();
                continue;
            }
            Scheduled s = scheduled.peek();
            if (s != null && (s.cancelled || s.due <= now)) {
                scheduled.poll();
                if (!s.cancelled) {
                    s.task.run();
                }
                continue;
            }
            return;
        }
    }

    /** Moves the clock forward by {@code ms}, running everything that falls due on the way, in time order. */
    void advance(long ms) {
        long target = now + ms;
        runPending();
        while (true) {
            Scheduled s = scheduled.peek();
            while (s != null && s.cancelled) {
                scheduled.poll();
                s = scheduled.peek();
            }
            if (s == null || s.due > target) {
                break;
            }
            now = Math.max(now, s.due);
            runPending();
        }
        now = target;
        runPending();
    }
}
