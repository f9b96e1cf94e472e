package io.weir.runtime.io.network;

import io.weir.core.checkpoint.CheckpointAlignment;
import io.weir.core.checkpoint.CheckpointBarrier;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

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
 * queue state is guarded by {@code this}. Nothing is called out while holding {@code this}: consumer
 * notifications run, and the overtaken-data futures complete (running the checkpoint's async part
 * or decline as a dependent action), only after the lock is released.
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
    /** Bytes per buffer the consumer asks for (buffer debloating); read by the producer per row. */
    private volatile int desiredBufferSize = Integer.MAX_VALUE;
    /** Set once before data flows: told when a priority barrier was put at the head of the queue. */
    private Runnable priorityNotifier = () -> { };
    /** Guarded by this: an aligned-with-timeout barrier not yet polled by the consumer, or null. */
    private CheckpointBarrier pendingBarrier;
    /** Guarded by this: completes with the data {@link #pendingBarrier} overtakes (empty if none). */
    private CompletableFuture<List<byte[]>> pendingOvertaken;
    /**
     * Whether the received queue held more after the last {@link #poll}; written by the consumer task thread under
     * this in {@link #poll}, read by it after (so it needs no second lock to ask).
     */
    private boolean lastPollLeftMore;
    /** What a sent buffer's recycle runs: one object for the link's life, not a method reference per buffer. */
    private final Runnable creditReturn = this::addCredit;

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

    /** Sets what to call when a barrier jumped to the head of the queue (the consumer handles it between records). */
    public void setPriorityNotifier(Runnable notifier) {
        this.priorityNotifier = notifier;
    }

    /** @return the head of the received queue if it is an unaligned barrier (which is then removed), else null */
    public CheckpointBarrier pollPriorityBarrier() {
        synchronized (this) {
            if (received.peek() instanceof CheckpointBarrier b && b.options().isUnaligned()) {
                received.poll();
                return b;
            }
            return null;
        }
    }

    /** Producer side: queues a finished data buffer. */
    public void addBuffer(NetworkBuffer buffer) {
        add(buffer);
    }

    /**
     * Producer side: sends a checkpoint barrier (PROTOCOL.md §4, §6).
     * <ul>
     * <li>UNALIGNED: the barrier overtakes everything queued on this link (producer backlog and
     *     consumer-side received buffers alike) and goes to the head of the consumer's queue; the
     *     overtaken buffers are this producer's output channel state, returned at once.</li>
     * <li>ALIGNED_WITH_TIMEOUT: queued behind the data like an aligned barrier; the future completes
     *     empty when the consumer takes the barrier, or with the overtaken data if
     *     {@link #convertToPriority} lets it overtake first.</li>
     * <li>otherwise: queued behind the data; the future completes empty at once.</li>
     * </ul>
     *
     * @return the in-flight data this barrier overtook, as copies of the buffers' bytes, in order
     */
    public CompletableFuture<List<byte[]>> addBarrier(CheckpointBarrier barrier) {
        CompletableFuture<List<byte[]>> overtaken = new CompletableFuture<>();
        List<byte[]> captured = null;
        CompletableFuture<List<byte[]>> superseded = null;
        boolean notify;
        synchronized (this) {
            boolean wasEmpty = received.isEmpty();
            switch (barrier.options().alignment()) {
                case UNALIGNED -> {
                    captured = new ArrayList<>();
                    copyBuffers(received, captured);
                    copyBuffers(backlog, captured);
                    received.addFirst(barrier);
                    blocked = false;
                }
                case ALIGNED_WITH_TIMEOUT -> {
                    // superseded by a newer checkpoint's barrier; completed below, outside the lock
                    superseded = pendingOvertaken;
                    pendingBarrier = barrier;
                    pendingOvertaken = overtaken;
                    backlog.add(barrier);
                }
                default -> {
                    captured = List.of();
                    backlog.add(barrier);
                }
            }
            transfer();
            notify = wasEmpty && !received.isEmpty();
        }
        if (superseded != null) {
            superseded.complete(List.of());
        }
        if (captured != null) {
            overtaken.complete(captured);
        }
        if (notify) {
            consumerNotifier.run();
        }
        if (barrier.options().isUnaligned()) {
            priorityNotifier.run();
        }
        return overtaken;
    }

    /**
     * Lets the pending aligned-with-timeout barrier of {@code checkpointId} overtake the data queued
     * before it (its timeout fired at the producer, or the consumer switched to unaligned). The
     * barrier becomes unaligned; the overtaken buffers complete the future {@link #addBarrier}
     * returned. No-op if that barrier was already taken by the consumer. Thread-safe.
     */
    public void convertToPriority(long checkpointId) {
        List<byte[]> captured = new ArrayList<>();
        CompletableFuture<List<byte[]>> future;
        boolean notify;
        synchronized (this) {
            if (pendingBarrier == null || pendingBarrier.checkpointId() != checkpointId) {
                return;
            }
            boolean wasEmpty = received.isEmpty();
            collectAhead(received, pendingBarrier, captured);
            if (!received.remove(pendingBarrier)) {
                collectAhead(backlog, pendingBarrier, captured);
                backlog.remove(pendingBarrier);
            }
            received.addFirst(pendingBarrier.asUnaligned());
            blocked = false;
            future = pendingOvertaken;
            pendingBarrier = null;
            pendingOvertaken = null;
            transfer();
            notify = wasEmpty && !received.isEmpty();
        }
        future.complete(captured);
        if (notify) {
            consumerNotifier.run();
        }
        priorityNotifier.run();
    }

    private static void copyBuffers(ArrayDeque<Object> queue, List<byte[]> into) {
        for (Object o : queue) {
            if (o instanceof NetworkBuffer b) {
                into.add(java.util.Arrays.copyOf(b.segment(), b.size()));
            }
        }
    }

    /** Copies the buffers before {@code stop} in {@code queue} (all of them if it is absent). */
    private static void collectAhead(ArrayDeque<Object> queue, Object stop, List<byte[]> into) {
        for (Object o : queue) {
            if (o == stop) {
                return;
            }
            if (o instanceof NetworkBuffer b) {
                into.add(java.util.Arrays.copyOf(b.segment(), b.size()));
            }
        }
    }

    /**
     * Restore: queues buffers of persisted in-flight data (PROTOCOL.md §6) before any new data.
     * Call before the producer and consumer start.
     */
    public void addRestoredBuffer(byte[] data, BufferPool pool) {
        NetworkBuffer buffer = pool.requestOverdraft(data.length);
        System.arraycopy(data, 0, buffer.segment(), 0, data.length);
        buffer.setSize(data.length);
        add(buffer);
    }

    /** Producer side: queues an event (cancel marker, end of data) behind all data. */
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

    /**
     * Consumer side: takes the head of the received queue; {@link #lastPollLeftMore()} then tells whether more is
     * received.
     *
     * @return the next received entry (a {@link NetworkBuffer} or an event), or null
     */
    public Object poll() {
        CompletableFuture<List<byte[]>> done = null;
        Object entry;
        synchronized (this) {
            entry = received.poll();
            lastPollLeftMore = !received.isEmpty();
            if (entry != null && entry == pendingBarrier) {
                done = pendingOvertaken;
                pendingBarrier = null;
                pendingOvertaken = null;
            }
        }
        if (done != null) {
            done.complete(List.of());
        }
        return entry;
    }

    /**
     * @return whether the received queue held more entries right after the last {@link #poll} (as of then; a
     *         producer's later data notifies the consumer as usual); consumer task thread only
     */
    public boolean lastPollLeftMore() {
        return lastPollLeftMore;
    }

    /** @return whether the consumer has something to poll */
    public synchronized boolean hasReceived() {
        return !received.isEmpty();
    }

    /** Consumer side: the buffer size (bytes) the producer should fill up to (buffer debloating). */
    public void setDesiredBufferSize(int bytes) {
        desiredBufferSize = bytes;
    }

    /** @return the buffer size the consumer asked for, bytes ({@link Integer#MAX_VALUE} = full buffers) */
    public int desiredBufferSize() {
        return desiredBufferSize;
    }

    /** @return buffers queued on this link, received and backlog (buffer debloating) */
    public synchronized int buffersInFlight() {
        int n = 0;
        for (Object o : received) {
            if (o instanceof NetworkBuffer) {
                n++;
            }
        }
        for (Object o : backlog) {
            if (o instanceof NetworkBuffer) {
                n++;
            }
        }
        return n;
    }

    /** @return buffers waiting upstream for credit (the backlog), for metrics */
    public synchronized int backlogSize() {
        return backlog.size();
    }

    /** Drops everything queued, recycling buffers (task cancellation). */
    public void releaseAll() {
        ArrayDeque<Object> drop = new ArrayDeque<>();
        CompletableFuture<List<byte[]>> pending;
        synchronized (this) {
            pending = pendingOvertaken;
            pendingBarrier = null;
            pendingOvertaken = null;
            drop.addAll(received);
            drop.addAll(backlog);
            received.clear();
            backlog.clear();
        }
        if (pending != null) {
            pending.completeExceptionally(new java.util.concurrent.CancellationException("channel released"));
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
                buffer.onRecycle(creditReturn);
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
