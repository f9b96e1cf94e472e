package io.weir.benchmarks;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The rows the benchmark's sink subtasks have written: one counter per subtask, each alone on its cache lines, summed
 * when read. A counter shared by the subtasks is written by two task threads per row: a {@code LongAdder} spreads them
 * over cells, but only after a failed compare-and-set, so both threads can stay on one cell for a whole run; its cache
 * line then moves between the cores with nearly every row, and the sink's increment became the costliest instruction of
 * the counter's chain (about 22 ns instead of 4 ns per row; measured with perf in such runs, benchmarks/README.md).
 * Thread-safe: each {@link Writer} has one writer thread; {@link #sum} may be called from any thread.
 */
public final class RowCounter {
    private static final VarHandle LONGS = MethodHandles.arrayElementVarHandle(long[].class);
    /** Longs per counter array: the count sits in the middle, 128 bytes or more from any other object's fields. */
    private static final int SLOT_LONGS = 33;
    private static final int COUNT = SLOT_LONGS / 2;

    private final List<long[]> slots = new CopyOnWriteArrayList<>();

    /** @return a new counter, included in {@link #sum} from now on; to be incremented by one thread only */
    public Writer newWriter() {
        long[] slot = new long[SLOT_LONGS];
        slots.add(slot);
        return new Writer(slot);
    }

    /**
     * @return the rows counted by every writer so far, >= 0; a writer's latest increments may be missing (opaque
     *         reads: each counter is read whole, never torn, and never goes backwards)
     */
    public long sum() {
        long total = 0;
        for (long[] slot : slots) {
            total += (long) LONGS.getOpaque(slot, COUNT);
        }
        return total;
    }

    /** One subtask's counter. Its writer thread only. */
    public static final class Writer implements Runnable {
        private final long[] slot;

        private Writer(long[] slot) {
            this.slot = slot;
        }

        /** Counts one row. */
        @Override
        public void run() {
            LONGS.setOpaque(slot, COUNT, (long) LONGS.get(slot, COUNT) + 1);
        }
    }
}
