package io.weir.state.heap.keyed;

import io.weir.api.Row;
import io.weir.core.state.InternalTimer;
import io.weir.core.state.KeyedTimerQueue;

import java.io.DataInput;
import java.io.DataOutput;
import java.io.IOException;
import java.util.Arrays;
import java.util.Comparator;
import java.util.PriorityQueue;

/**
 * A {@link KeyedTimerQueue} on the heap. Two structures:
 * <ul>
 * <li>the persistent one, a keyed state of kind {@link StateKind#TIMERS}: per key, its timestamps as a sorted
 *     {@code long[]} that is replaced, never changed, on every update (so the backend's copy-on-write snapshots
 *     and per-key-group layout apply unchanged, and rescaling moves timers with their key group);</li>
 * <li>a priority queue of {@link InternalTimer}s by timestamp for firing order, rebuilt from the table on
 *     restore. A deleted timer stays in the priority queue and is dropped when it reaches the head and is no
 *     longer in the table (lazy deletion: O(log n) per operation, no index to maintain). A timer deleted and
 *     added again may sit in the queue twice; the first one to reach the head removes it from the table, so it
 *     fires once.</li>
 * </ul>
 * Task thread only, except {@link #writeValue} (snapshot thread, immutable arrays).
 */
final class HeapTimerQueue extends AbstractHeapState<long[]> implements KeyedTimerQueue {
    private static final Comparator<InternalTimer> BY_TIMESTAMP = Comparator.comparingLong(InternalTimer::timestamp);
    private final int rangeStart;
    /** Task thread only: every live timer, plus lazily deleted ones. */
    private final PriorityQueue<InternalTimer> queue = new PriorityQueue<>(BY_TIMESTAMP);
    /** Task thread only: live timers. */
    private int size;

    HeapTimerQueue(String name, KeyContext ctx, int numKeyGroups, int rangeStart) {
        super(name, StateKind.TIMERS, ctx, numKeyGroups);
        this.rangeStart = rangeStart;
    }

    /** Rebuilds the priority queue from the table after restored entries were loaded. */
    void rebuildQueue() {
        queue.clear();
        size = 0;
        table.forEach((index, key, timestamps) -> {
            for (long t : timestamps) {
                queue.add(new InternalTimer(t, key, rangeStart + index));
                size++;
            }
        });
    }

    @Override
    public boolean add(long timestamp) {
        requireKey();
        long[] current = table.get();
        long[] updated;
        if (current == null) {
            updated = new long[] {timestamp};
        } else {
            int pos = Arrays.binarySearch(current, timestamp);
            if (pos >= 0) {
                return false;
            }
            int at = -pos - 1;
            updated = new long[current.length + 1];
            System.arraycopy(current, 0, updated, 0, at);
            updated[at] = timestamp;
            System.arraycopy(current, at, updated, at + 1, current.length - at);
        }
        table.put(updated);
        queue.add(new InternalTimer(timestamp, ctx.retainedKey(), rangeStart + ctx.keyGroupIndex));
        size++;
        return true;
    }

    @Override
    public boolean delete(long timestamp) {
        requireKey();
        return remove(ctx.keyGroupIndex, ctx.key, timestamp);
    }

    @Override
    public long peekTimestamp() {
        InternalTimer head = liveHead();
        return head == null ? Long.MAX_VALUE : head.timestamp();
    }

    @Override
    public InternalTimer poll(long maxTimestamp) {
        InternalTimer head = liveHead();
        if (head == null || head.timestamp() > maxTimestamp) {
            return null;
        }
        queue.poll();
        remove(head.keyGroup() - rangeStart, head.key(), head.timestamp());
        return head;
    }

    @Override
    public int size() {
        return size;
    }

    /** @return the head after dropping deleted timers, or null */
    private InternalTimer liveHead() {
        InternalTimer head;
        while ((head = queue.peek()) != null && !contains(head)) {
            queue.poll();
        }
        return head;
    }

    private boolean contains(InternalTimer t) {
        long[] ts = table.getAt(t.keyGroup() - rangeStart, t.key());
        return ts != null && Arrays.binarySearch(ts, t.timestamp()) >= 0;
    }

    private boolean remove(int keyGroupIndex, Row key, long timestamp) {
        long[] current = table.getAt(keyGroupIndex, key);
        int pos = current == null ? -1 : Arrays.binarySearch(current, timestamp);
        if (pos < 0) {
            return false;
        }
        long[] updated = null;
        if (current.length > 1) {
            updated = new long[current.length - 1];
            System.arraycopy(current, 0, updated, 0, pos);
            System.arraycopy(current, pos + 1, updated, pos, current.length - pos - 1);
        }
        table.setAt(keyGroupIndex, key, updated);
        size--;
        return true;
    }

    /** Format: count int, then the timestamps ascending, 8 bytes each. */
    @Override
    void writeValue(long[] value, DataOutput out) throws IOException {
        out.writeInt(value.length);
        for (long t : value) {
            out.writeLong(t);
        }
    }

    @Override
    long[] readValue(DataInput in) throws IOException {
        int n = in.readInt();
        if (n < 1) {
            throw new IOException("a key's timer list has " + n + " timers");
        }
        long[] ts = new long[n];
        for (int i = 0; i < n; i++) {
            ts[i] = in.readLong();
            if (i > 0 && ts[i] <= ts[i - 1]) {
                throw new IOException("timer timestamps not ascending: " + ts[i - 1] + ", " + ts[i]);
            }
        }
        return ts;
    }
}
