package io.weir.runtime.io.network;

import java.util.ArrayDeque;
import java.util.List;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * The consumer end of all input edges of one task: one channel per (edge, producer subtask), each
 * backed by a {@link PipelinedSubpartition}. Channels with received data are served round-robin.
 * A blocked channel (during alignment, PROTOCOL.md §4) is not read until it is resumed.
 *
 * <p>{@link #pollNext()}, {@link #block}, {@link #resume}, {@link #resumeAll}: task thread only. Two structures say
 * which channels have data. Producers <em>announce</em> a channel when its received queue turns non-empty (the
 * subpartition calls the notifier only on that transition): they set the channel's bit in {@code announced} and then
 * {@code anyAnnounced}, lock-free and without allocating. The task thread moves announced channels into its own
 * round-robin {@code ring} and, after taking a buffer, puts the channel back at the ring's tail while the subpartition
 * reports more received ({@link PipelinedSubpartition#poll} tells under the same lock), with no atomic operation. So
 * a channel costs the producers one compare-and-set per empty → non-empty transition and the consumer nothing per
 * buffer. (Before, each channel went through a {@code ConcurrentLinkedQueue}: a node and a compare-and-set on the
 * queue's tail per buffer taken, shared with the producers' offers; 47 of 1,179 counter-thread samples of a JFR of
 * {@code throughput-16}, benchmarks/README.md, issue 13.)
 *
 * <p>No notification is lost: a channel with received data is in the ring, or its bit is set (or about to be, by
 * the producer that made its queue non-empty), or it is blocked and goes back into the ring on resume. The task
 * thread clears {@code anyAnnounced} before it takes the bits, and a producer sets its bit before it sets
 * {@code anyAnnounced}, so a bit set after the taking leaves {@code anyAnnounced} set for the next poll.
 * Priority barriers (rare) are guarded by {@code this}.
 */
public final class InputGate {
    /** A received entry and the channel it came through. */
    public record ChannelEntry(int channel, Object entry) {
    }

    private final List<PipelinedSubpartition> channels;
    /** Set once by the consuming task before data flows. */
    private volatile Runnable wakeUp = () -> { };
    /** Bit c of word c / 64: channel c was announced and not yet moved into the ring; producers set, task thread clears. */
    private final AtomicLongArray announced;
    /** Whether a bit of {@link #announced} may be set; set by producers after their bit, cleared by the task thread. */
    private volatile boolean anyAnnounced;
    /** Task thread only: the channels to read, round-robin, each at most once ({@link #inRing}). */
    private final int[] ring;
    /** Task thread only: index of the ring's head. */
    private int ringHead;
    /** Task thread only: channels in the ring. */
    private int ringSize;
    /** Task thread only: whether channel c is in the ring. */
    private final boolean[] inRing;
    /** Guarded by this: channels that announced a priority barrier. */
    private final ArrayDeque<Integer> priority = new ArrayDeque<>();
    /** Written under this, read lock-free between records. */
    private volatile boolean hasPriority;
    /** Task thread only. */
    private final boolean[] blocked;
    /** Runs at the end of {@link #takeAnnounced} (a point for tests to add data at); task thread. */
    private final Runnable afterAnnouncedTaken;

    /**
     * @param channels the subpartitions feeding this gate, in channel-index order
     */
    public InputGate(List<PipelinedSubpartition> channels) {
        this(channels, () -> { });
    }

    /**
     * @param channels the subpartitions feeding this gate, in channel-index order
     * @param afterAnnouncedTaken runs each time the task thread has moved the announced channels into its ring
     *        (tests: data added there must still be found)
     */
    InputGate(List<PipelinedSubpartition> channels, Runnable afterAnnouncedTaken) {
        this.afterAnnouncedTaken = afterAnnouncedTaken;
        this.channels = List.copyOf(channels);
        this.announced = new AtomicLongArray((channels.size() + 63) / 64);
        this.ring = new int[channels.size()];
        this.inRing = new boolean[channels.size()];
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
            if (anyAnnounced) {
                takeAnnounced();
            }
            if (ringSize == 0) {
                return null;
            }
            int channel = ring[ringHead];
            ringHead = ringHead + 1 == ring.length ? 0 : ringHead + 1;
            ringSize--;
            inRing[channel] = false;
            if (blocked[channel]) {
                continue; // back into the ring on resume
            }
            PipelinedSubpartition sp = channels.get(channel);
            Object entry = sp.poll();
            if (sp.lastPollLeftMore()) {
                addToRing(channel);
            }
            if (entry != null) {
                return new ChannelEntry(channel, entry);
            }
        }
    }

    /** Moves the announced channels into the ring, in channel order. Task thread only. */
    private void takeAnnounced() {
        // cleared before the bits are taken: a bit set from now on sets the flag again (see the class comment)
        anyAnnounced = false;
        for (int w = 0; w < announced.length(); w++) {
            if (announced.get(w) == 0) {
                continue;
            }
            long bits = announced.getAndSet(w, 0);
            while (bits != 0) {
                addToRing(w * 64 + Long.numberOfTrailingZeros(bits));
                bits &= bits - 1;
            }
        }
        afterAnnouncedTaken.run();
    }

    /** Puts {@code channel} at the ring's tail unless it is in the ring. Task thread only. */
    private void addToRing(int channel) {
        if (!inRing[channel]) {
            inRing[channel] = true;
            int tail = ringHead + ringSize;
            ring[tail >= ring.length ? tail - ring.length : tail] = channel;
            ringSize++;
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
            addToRing(channel);
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

    /** A producer made {@code channel}'s received queue non-empty; any thread, lock-free. */
    private void notifyDataAvailable(int channel) {
        int w = channel >>> 6;
        long bit = 1L << channel; // shift distances are taken mod 64
        long bits = announced.get(w);
        while ((bits & bit) == 0) {
            long seen = announced.compareAndExchange(w, bits, bits | bit);
            if (seen == bits) {
                break;
            }
            bits = seen;
        }
        // after the bit (see the class comment); a flag still set needs no second volatile write
        if (!anyAnnounced) {
            anyAnnounced = true;
        }
        wakeUp.run();
    }
}
