package io.weir.ha.hazelcast.jobs;

import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

/**
 * Whether this node may take jobs now (start a run of a job assigned to it, reclaim a job under a new epoch, assign jobs
 * as the leader): not for {@code holdNanos} after it noticed that it may have been cut off from the others, i.e. one of
 * its periodic threads did not run for longer than {@code maxGapNanos} (the process was paused: {@code kill -STOP}, a
 * long GC, heavy starvation). A run that merely lost its lease (renewals answered late under load, its threads running)
 * does not start a hold: at load 50 on 2 cores that happened every ~20 s, and a 5 s hold each time kept the job down.
 *
 * <p>Why: a process woken from a pause keeps its old cluster view for a moment, and its calls can be applied to its own
 * stale copies of the maps. Seen in HaFailoverIT's zombie test: 0.2 s after {@code kill -CONT} the former owner, still
 * seeing 2 of 3 members, "reclaimed" the job under epoch 2 in its own copy, the epoch the new owner was already running
 * under; had it started the run, equal epochs pass the fencing and both would have committed. Within {@code holdNanos}
 * (chosen: {@code max-no-heartbeat} + one heartbeat period + 1 s) the others have removed a member silent for
 * {@code max-no-heartbeat}, and it has noticed (it sees a minority, or merges back under a new member id, which no job
 * store entry names).
 *
 * <p>Thread-safe: the deadline is an atomic, on the monotonic clock {@code nanos}.
 */
final class TakeoverHold {
    private final LongSupplier nanos;
    private final long maxGapNanos;
    private final long holdNanos;
    /** Takeovers are held while {@code nanos} is before this. */
    private final AtomicLong until;

    /**
     * @param nanos monotonic clock, ns
     * @param maxGapNanos a gap between two runs of a periodic thread longer than this starts a hold, ns, > 0
     * @param holdNanos how long a hold lasts, ns, > 0
     * @throws IllegalArgumentException if a duration is not positive
     */
    TakeoverHold(LongSupplier nanos, long maxGapNanos, long holdNanos) {
        if (maxGapNanos <= 0 || holdNanos <= 0) {
            throw new IllegalArgumentException("takeover hold: the gap and hold durations must be > 0 ns, got " + maxGapNanos
                    + " and " + holdNanos);
        }
        this.nanos = nanos;
        this.maxGapNanos = maxGapNanos;
        this.holdNanos = holdNanos;
        this.until = new AtomicLong(nanos.getAsLong());
    }

    /**
     * @param gapNanos how long the calling periodic thread did not run (from the end of its previous run to now), ns
     * @return whether this gap started (or extended) a hold
     */
    boolean sawGap(long gapNanos) {
        if (gapNanos > maxGapNanos) {
            start();
            return true;
        }
        return false;
    }

    /** Starts a hold now (or extends the current one to {@code holdNanos} from now). */
    void start() {
        long end = nanos.getAsLong() + holdNanos;
        until.accumulateAndGet(end, (current, proposed) -> proposed - current > 0 ? proposed : current);
    }

    /** @return whether takeovers are held now */
    boolean held() {
        return nanos.getAsLong() - until.get() < 0;
    }
}
