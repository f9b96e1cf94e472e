package io.weir.runtime.io.network;

import io.weir.core.checkpoint.CheckpointAlignment;
import io.weir.core.checkpoint.CheckpointBarrier;

import java.util.ArrayDeque;

/**
 * The link from one producer subtask to one consumer subtask on one edge, with credit-based flow
 * control: data buffers wait in the producer-side <em>backlog</em> until the consumer has granted a
 * credit, then move to the consumer-side <em>received</em> queue. Each consumed buffer's recycle
 * returns one credit, which lets the next backlog buffer through. Events need no credit.
 *
 * <p>Aligned barriers block the link (PROTOCOL.md §4): once an aligned barrier has been handed to
 * the consumer, nothing more is sent until {@link #resume()}, so data behind the barrier stays
 * upstream in the backlog and the consumer needs no extra memory.
 *
 * <p>Thread-safe: the producer task thread adds, the consumer task thread polls and recycles; all
 * queue state is guarded by {@code this}. Callbacks to the consumer run outside the lock.
 */
public final class PipelinedSubpartition {
    /** Guarded by this: buffers and events not yet sent. */
    private final ArrayDeque<Object> backlog = new ArrayDeque<>();
    /** Guarded by this: buffers and events sent, not yet polled by the consumer. */
    private final ArrayDeque<Object> received = new ArrayDeque<>();
    /** Guarded by this: buffers the consumer can still accept. */
    private int credit;
    /** Guarded by this: whether an aligned barrier was sent and the consumer has not resumed. */
    private boolean blocked;
    /** Set once before data flows. */
    private Runnable consumerNotifier = () -> { };

    /** @param initialCredit exclusive buffers of the consumer channel, ≥ 1 */
    public PipelinedSubpartition(int initialCredit) {
        if (initialCredit < 1) {
            throw new IllegalArgumentException("initial credit must be >= 1, got " + initialCredit);
        }
        this.credit = initialCredit;
    }

    /** Sets what to call when the received queue turns non-empty (the consumer gate's notification). */
    public void setConsumerNotifier(Runnable notifier) {
        this.consumerNotifier = notifier;
    }

    /** Producer side: queues a finished data buffer. */
    public void addBuffer(NetworkBuffer buffer) {
        add(buffer);
    }

    /** Producer side: queues an event (barrier, cancel marker, end of data) behind all data. */
    public void addEvent(Object event) {
        add(event);
    }

    private void add(Object entry) {
        boolean notify;
        synchronized (this) {
            backlog.add(entry);
            notify = transfer();
        }
        if (notify) {
            consumerNotifier.run();
        }
    }

    /** Consumer side: returns one credit (a received buffer was recycled). */
    public void addCredit() {
        boolean notify;
        synchronized (this) {
            credit++;
            notify = transfer();
        }
        if (notify) {
            consumerNotifier.run();
        }
    }

    /** Consumer side: unblocks the link after alignment. */
    public void resume() {
        boolean notify;
        synchronized (this) {
            if (!blocked) {
                return;
            }
            blocked = false;
            notify = transfer();
        }
        if (notify) {
            consumerNotifier.run();
        }
    }

    /** @return the next received entry (a {@link NetworkBuffer} or an event), or null */
    public synchronized Object poll() {
        return received.poll();
    }

    /** @return whether the consumer has something to poll */
    public synchronized boolean hasReceived() {
        return !received.isEmpty();
    }

    /** @return buffers waiting upstream for credit (the backlog), for metrics */
    public synchronized int backlogSize() {
        return backlog.size();
    }

    /** Drops everything queued, recycling buffers (task cancellation). */
    public void releaseAll() {
        ArrayDeque<Object> drop = new ArrayDeque<>();
        synchronized (this) {
            drop.addAll(received);
            drop.addAll(backlog);
            received.clear();
            backlog.clear();
        }
        for (Object o : drop) {
            if (o instanceof NetworkBuffer b) {
                b.recycle();
            }
        }
    }

    /** Moves what credit and blocking allow from backlog to received; caller holds the lock. @return whether received went from empty to non-empty */
    private boolean transfer() {
        boolean wasEmpty = received.isEmpty();
        while (!blocked && !backlog.isEmpty()) {
            Object head = backlog.peek();
            if (head instanceof NetworkBuffer buffer) {
                if (credit == 0) {
                    break;
                }
                credit--;
                buffer.onRecycle(this::addCredit);
            } else if (head instanceof CheckpointBarrier barrier && blocksUpstream(barrier)) {
                blocked = true;
            }
            received.add(backlog.poll());
        }
        return wasEmpty && !received.isEmpty();
    }

    private static boolean blocksUpstream(CheckpointBarrier barrier) {
        CheckpointAlignment a = barrier.options().alignment();
        return a == CheckpointAlignment.ALIGNED || a == CheckpointAlignment.ALIGNED_WITH_TIMEOUT;
    }
}
