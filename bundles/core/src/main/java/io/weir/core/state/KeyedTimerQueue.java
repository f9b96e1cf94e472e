package io.weir.core.state;

/**
 * The timers of one domain (event or processing time) of a keyed operator subtask, kept by its
 * {@link KeyedStateBackend} as keyed state (Flink's {@code KeyGroupedInternalPriorityQueue}). Every
 * backend implements it; the runtime's timer service is built on it.
 *
 * <p>Contract for implementations:
 * <ul>
 * <li>A timer is (key, timestamp); adding an existing timer changes nothing.</li>
 * <li>Timers are stored per key group, written with the backend's snapshots and restored per key group
 *     (so rescaling moves each timer with its key). The logical content per key group is: for each key
 *     with timers, its timestamps in ascending order (docs/checkpoint-format.md, "Timers"); a savepoint
 *     written by one backend must restore on the other.</li>
 * <li>{@link #add} and {@link #delete} use the backend's current key; {@link #poll} does not need one.</li>
 * </ul>
 * Task thread only (the snapshot reads a copy-on-write picture like any other keyed state).
 */
public interface KeyedTimerQueue {
    /**
     * Adds a timer for the backend's current key.
     *
     * @return false if that key already had a timer at {@code timestamp}
     * @throws IllegalStateException if no current key is set
     */
    boolean add(long timestamp);

    /**
     * Removes the current key's timer at {@code timestamp}.
     *
     * @return whether there was one
     * @throws IllegalStateException if no current key is set
     */
    boolean delete(long timestamp);

    /** @return the smallest timestamp of all timers, or {@link Long#MAX_VALUE} if there are none */
    long peekTimestamp();

    /**
     * Removes and returns the timer with the smallest timestamp if that timestamp is {@code <= maxTimestamp}
     * (ties in no particular order).
     *
     * @return the timer, or null if there is none that early
     */
    InternalTimer poll(long maxTimestamp);

    /** @return the number of timers */
    int size();
}
