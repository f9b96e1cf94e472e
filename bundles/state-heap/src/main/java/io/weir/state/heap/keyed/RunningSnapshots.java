package io.weir.state.heap.keyed;

import java.util.TreeSet;

/**
 * The versions that running snapshots of one keyed heap backend still need: what decides whether the task thread
 * may change a stored value or key-group map in place or must copy it first (see {@link StateTable}).
 *
 * <p>A snapshot's version is the backend's {@link KeyContext#epoch} right after its synchronous part: it may
 * reference every value and map whose version is lower. It is running from {@link #start} (task thread, in the
 * synchronous part) until {@link #finish} (the thread of its asynchronous part, when the writing ends, whether it
 * succeeded or not). {@link #required()} is the highest running version, or 0 when no snapshot runs: an object
 * whose version is below it may be referenced by a running snapshot and must not be changed.
 *
 * <p>Thread-safe. The task thread reads {@link #required()} (one volatile read, no lock) on each write to a map.
 * A stale read after a {@link #finish} on another thread only costs a needless copy; {@link #start} runs on the
 * task thread itself, so the task thread always sees a raised version.
 */
final class RunningSnapshots {
    /** Guarded by {@code this}: versions of the running snapshots. */
    private final TreeSet<Long> running = new TreeSet<>();
    /** The highest element of {@link #running}, or 0; written under {@code this}, read by the task thread. */
    private volatile long required;

    /** @return the highest version a running snapshot needs, or 0 if none runs */
    long required() {
        return required;
    }

    /**
     * Registers a snapshot as running.
     *
     * @param version its version, {@code >= 1}, higher than that of every earlier snapshot
     * @throws IllegalArgumentException if {@code version} is not higher than every running one
     */
    synchronized void start(long version) {
        if (version < 1 || (!running.isEmpty() && version <= running.last())) {
            throw new IllegalArgumentException("snapshot version " + version + " must be >= 1 and above the running "
                    + running);
        }
        running.add(version);
        required = version;
    }

    /**
     * Marks a snapshot as finished (written, failed or given up); a second call for the same version does nothing.
     *
     * @param version what was passed to {@link #start}
     */
    synchronized void finish(long version) {
        if (running.remove(version)) {
            required = running.isEmpty() ? 0 : running.last();
        }
    }

    @Override
    public synchronized String toString() {
        return "RunningSnapshots" + running;
    }
}
