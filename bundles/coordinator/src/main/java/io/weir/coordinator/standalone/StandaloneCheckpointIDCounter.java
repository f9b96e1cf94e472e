package io.weir.coordinator.standalone;

import io.weir.core.ha.CheckpointIDCounter;

import java.util.concurrent.atomic.AtomicLong;

/**
 * In-memory checkpoint id counter (PROTOCOL.md §2), starting at 1. Ids do not survive the process:
 * after a restart {@code restoreLatestCheckpoint} moves it past the restored id. Thread-safe.
 */
public final class StandaloneCheckpointIDCounter implements CheckpointIDCounter {
    /** The id the next {@link #getAndIncrement} returns. */
    private final AtomicLong next = new AtomicLong(1);

    @Override
    public long getAndIncrement() {
        return next.getAndIncrement();
    }

    @Override
    public long get() {
        return next.get();
    }

    /** @throws IllegalArgumentException if {@code next} is below 1 */
    @Override
    public void setCount(long next) {
        if (next < 1) {
            throw new IllegalArgumentException("next checkpoint id must be >= 1, got " + next);
        }
        this.next.set(next);
    }
}
