package io.weir.runtime.io.network;

import java.util.ArrayDeque;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicIntegerArray;

/**
 * The consumer end of all input edges of one task: one channel per (edge, producer subtask), each
 * backed by a {@link PipelinedSubpartition}. Channels with received data are served round-robin.
 * A blocked channel (during alignment, PROTOCOL.md §4) is not read until it is resumed.
 *
 * <p>{@link #pollNext()}, {@link #block}, {@link #resumeAll}: task thread only. The data-available
 * notification comes from producer threads and takes no lock: the queue of channels with data is a lock-free
 * queue in which each channel appears at most once ({@code queued}, set by compare-and-set). It used to be
 * guarded by {@code this}, a monitor that each producer and the consumer took for every 32 KB buffer; in a JFR
 * of {@code throughput-16} (with {@code -XX:+DebugNonSafepoints}) 126 of 744 execution samples of the counter
 * threads were on the consumer's side of it (benchmarks/README.md, issue 13). Priority barriers (rare) are
 * still guarded by {@code this}.
 */
public final class InputGate {
    /** A received entry and the channel it came through. */
    public record ChannelEntry(int channel, Object entry) {
    }

    private final List<PipelinedSubpartition> channels;
    /** Set once by the consuming task before data flows. */
    private volatile Runnable wakeUp = () -> { };
    /** Channels that may have data, each at most once; producers add, the task thread polls. */
    private final ConcurrentLinkedQueue<Integer> withData = new ConcurrentLinkedQueue<>();
    /**
     * {@code queued[c] == 1} while channel c is in {@link #withData} (or about to be added by whoever set it):
     * set 0 → 1 by the thread that adds c, back to 0 by the task thread after polling c and before reading it.
     */
    private final AtomicIntegerArray queued;
    /** Guarded by this: channels that announced a priority barrier. */
    private final ArrayDeque<Integer> priority = new ArrayDeque<>();
    /** Written under this, read lock-free between records. */
    private volatile boolean hasPriority;
    /** Task thread only. */
    private final boolean[] blocked;

    /**
     * @param channels the subpartitions feeding this gate, in channel-index order
     */
    public InputGate(List<PipelinedSubpartition> channels) {
        this.channels = List.copyOf(channels);
        this.queued = new AtomicIntegerArray(channels.size());
        this.blocked = new boolean[channels.size()];
        for (int i = 0; i < this.channels.size(); i++) {
            final int channel = i;
            this.channels.get(i).setConsumerNotifier(() -> notifyDataAvailable(channel));
            this.channels.get(i).setPriorityNotifier(() -> notifyPriority(channel));
        }
    }

    /** Sets what to call when a channel gets data (the consuming task's mailbox wake-up). */
    public void setDataAvailableListener(Runnable wakeUp) {
        this.wakeUp = wakeUp;
    }

    /** @return the subpartition behind {@code channel} */
    public PipelinedSubpartition channel(int channel) {
        return channels.get(channel);
    }

    /** Asks every channel's producer for buffers of {@code bytes} (buffer debloating). */
    public void setDesiredBufferSize(int bytes) {
        for (PipelinedSubpartition sp : channels) {
            sp.setDesiredBufferSize(bytes);
        }
    }

    /** @return buffers queued on all channels */
    public int buffersInFlight() {
        int n = 0;
        for (PipelinedSubpartition sp : channels) {
            n += sp.buffersInFlight();
        }
        return n;
    }

    /** @return the number of channels */
    public int numberOfChannels() {
        return channels.size();
    }

    /**
     * @return the next entry of a non-blocked channel, or null if none has data now
     */
    public ChannelEntry pollNext() {
        while (true) {
            Integer c = withData.poll();
            if (c == null) {
                return null;
            }
            int channel = c;
            // cleared before the channel is read: data a producer adds from now on queues the channel again, and
            // data it added before is seen by the hasReceived() below
            queued.set(channel, 0);
            if (blocked[channel]) {
                continue; // re-queued on resume
            }
            PipelinedSubpartition sp = channels.get(channel);
            Object entry = sp.poll();
            if (sp.hasReceived()) {
                enqueue(channel);
            }
            if (entry != null) {
                return new ChannelEntry(channel, entry);
            }
        }
    }

    /** Stops reading {@code channel} until {@link #resumeAll()}. */
    public void block(int channel) {
        blocked[channel] = true;
    }

    /** Unblocks one channel: consumer side and the upstream subpartition. */
    public void resume(int channel) {
        boolean wasBlocked = blocked[channel];
        blocked[channel] = false;
        channels.get(channel).resume();
        if (wasBlocked && channels.get(channel).hasReceived()) {
            enqueue(channel);
        }
    }

    /** Unblocks every channel: consumer side and the upstream subpartition. */
    public void resumeAll() {
        for (int i = 0; i < channels.size(); i++) {
            resume(i);
        }
    }

    /** @return whether {@code channel} is blocked */
    public boolean isBlocked(int channel) {
        return blocked[channel];
    }

    /** Drops and recycles everything received (task cancellation). */
    public void releaseAll() {
        for (PipelinedSubpartition sp : channels) {
            sp.releaseAll();
        }
    }

    /** @return whether a priority barrier may be waiting (one volatile read; checked between records) */
    public boolean hasPriorityEvent() {
        return hasPriority;
    }

    /**
     * @return the next priority (unaligned) barrier that jumped to the head of a channel, or null;
     *         task thread only
     */
    public ChannelEntry pollPriorityEvent() {
        while (true) {
            int channel;
            synchronized (this) {
                Integer c = priority.poll();
                hasPriority = !priority.isEmpty();
                if (c == null) {
                    return null;
                }
                channel = c;
            }
            Object barrier = channels.get(channel).pollPriorityBarrier();
            if (barrier != null) {
                return new ChannelEntry(channel, barrier);
            }
            // already taken through the normal path
        }
    }

    private void notifyPriority(int channel) {
        synchronized (this) {
            priority.add(channel);
            hasPriority = true;
        }
        wakeUp.run();
    }

    private void notifyDataAvailable(int channel) {
        enqueue(channel);
        wakeUp.run();
    }

    /** Queues {@code channel} unless it is queued already; any thread, lock-free. */
    private void enqueue(int channel) {
        if (queued.get(channel) == 0 && queued.compareAndSet(channel, 0, 1)) {
            withData.add(channel);
        }
    }
}
