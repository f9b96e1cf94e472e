package io.weir.runtime.mailbox;

import java.util.ArrayDeque;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The mail queue of one task: any thread puts mails; only the task thread takes them.
 *
 * <p>Besides mails the mailbox carries a wake-up signal: input gates and buffer pools call
 * {@link #wakeUp()} when data or buffers become available, so a task waiting in
 * {@link #waitForMailOrSignal} resumes its default action without polling. A signal given while
 * the task is not waiting is remembered, so none is lost.
 *
 * <p>The task thread checks for mail between records with {@link #hasMail()}, one volatile read;
 * the lock is taken only when there is mail or when the task has nothing else to do. {@link #wakeUp()} takes
 * it only when the task thread waits: input gates and buffer pools call it for every buffer, mostly while the
 * task is busy, where it is one volatile write and one volatile read.
 */
public final class TaskMailbox {
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition changed = lock.newCondition();
    /** Guarded by {@link #lock}. */
    private final ArrayDeque<Mail> queue = new ArrayDeque<>();
    /**
     * How often {@link #waitForMailOrSignal} gives up the core ({@link Thread#yield}) before it parks. A task thread
     * that runs out of input usually shares its core with a runnable producer that will hand it the next buffer
     * within microseconds; yielding lets that producer run without the park, the producer's wake-up call and the
     * two context switches through the futex (~17 µs together on the paravirtualized machine of issue 13's session
     * 12, 9,500 a second). When no other thread is runnable a yield returns at once, so an idle task spins this
     * many system calls before it parks. Measured: benchmarks/README.md, "Yielding before parking".
     */
    private static final int YIELDS_BEFORE_PARKING = 16;
    /**
     * Written by any thread without the lock ({@link #wakeUp}), cleared by the task thread under it. Volatile, as is
     * {@link #waiting}: a waker writes this then reads {@code waiting}, the task thread writes {@code waiting} then
     * reads this, so at least one of them sees the other's write and no wake-up is lost.
     */
    private volatile boolean signalled;
    /** Whether the task thread is in {@link #waitForMailOrSignal}; written by it under {@link #lock}. */
    private volatile boolean waiting;
    /** Written under {@link #lock}; read by the task thread without it. */
    private volatile boolean hasMail;
    /** Guarded by {@link #lock}. */
    private boolean closed;

    /**
     * Enqueues a mail; thread-safe.
     *
     * @return false if the mailbox is closed (the task ended), in which case the mail is dropped
     */
    public boolean put(Mail mail) {
        lock.lock();
        try {
            if (closed) {
                return false;
            }
            queue.add(mail);
            hasMail = true;
            changed.signal();
            return true;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Wakes the task thread if it waits, or makes its next wait return at once. Thread-safe; takes the lock only
     * when the task thread waits.
     */
    public void wakeUp() {
        signalled = true;
        if (waiting) {
            lock.lock();
            try {
                changed.signal();
            } finally {
                lock.unlock();
            }
        }
    }

    /** @return whether a mail is waiting (task thread; one volatile read) */
    public boolean hasMail() {
        return hasMail;
    }

    /** @return the next mail or null; task thread only */
    public Mail tryTake() {
        if (!hasMail) {
            return null;
        }
        lock.lock();
        try {
            Mail m = queue.poll();
            hasMail = !queue.isEmpty();
            return m;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Blocks the task thread until a mail arrives, a signal is given, or {@code timeoutNanos} pass.
     * Clears the signal. Yields the core up to {@value #YIELDS_BEFORE_PARKING} times first, returning without
     * parking when a signal or mail comes meanwhile.
     *
     * @throws InterruptedException if the task thread is interrupted (task cancellation)
     */
    public void waitForMailOrSignal(long timeoutNanos) throws InterruptedException {
        for (int i = 0; i < YIELDS_BEFORE_PARKING && !signalled && !hasMail; i++) {
            Thread.yield();
        }
        lock.lock();
        try {
            waiting = true;
            long remaining = timeoutNanos;
            while (queue.isEmpty() && !signalled && !closed && remaining > 0) {
                remaining = changed.awaitNanos(remaining);
            }
            signalled = false;
        } finally {
            waiting = false;
            lock.unlock();
        }
    }

    /** Closes the mailbox: later puts are refused. Returns nothing queued; queued mails are dropped. */
    public void close() {
        lock.lock();
        try {
            closed = true;
            queue.clear();
            hasMail = false;
            changed.signalAll();
        } finally {
            lock.unlock();
        }
    }
}
