package io.weir.ha.hazelcast.jobs;

import io.weir.ha.hazelcast.checkpoint.JobEpochs;

import java.util.Map;
import java.util.OptionalLong;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;

/**
 * The leases this node holds: job name → the fencing epoch it was assigned the job under and until when (this node's
 * monotonic clock) the lease counts. A lease is added just before the node starts its run of the job and removed before
 * the run is stopped, so the checkpoint id counter and completed store of a run that lost its lease cannot even be
 * created again (a restart of the job fails). Each successful renewal moves the deadline; {@link #holds} is false past
 * it even before the watchdog removed the lease, which matters for a process that was paused: on waking, its completing
 * thread may run before the watchdog does. Thread-safe (a concurrent map of immutable leases).
 */
public final class JobLeases implements JobEpochs {
    private record Lease(long epoch, long validUntilNanos) {
    }

    private final Map<String, Lease> held = new ConcurrentHashMap<>();
    private final LongSupplier nanos;

    /** Leases on {@link System#nanoTime()}. */
    public JobLeases() {
        this(System::nanoTime);
    }

    /** @param nanos the monotonic clock the deadlines are on, ns (the one {@link JobOwnership} measures renewals with) */
    JobLeases(LongSupplier nanos) {
        this.nanos = nanos;
    }

    /**
     * @throws IllegalStateException naming the job if this node holds no lease on it
     */
    @Override
    public long epochOf(String jobName) {
        Lease lease = held.get(jobName);
        if (lease == null) {
            throw new IllegalStateException("job " + jobName + ": this node holds no lease on it (another node owns it, or the"
                    + " node lost its lease); it must not run it");
        }
        return lease.epoch();
    }

    /** @return whether this node holds the lease on {@code jobName} under {@code epoch} and its deadline has not passed */
    @Override
    public boolean holds(String jobName, long epoch) {
        Lease lease = held.get(jobName);
        return lease != null && lease.epoch() == epoch && nanos.getAsLong() - lease.validUntilNanos() < 0;
    }

    /** @return the epoch of the lease on {@code jobName}, empty if none is held */
    public OptionalLong find(String jobName) {
        Lease lease = held.get(jobName);
        return lease == null ? OptionalLong.empty() : OptionalLong.of(lease.epoch());
    }

    /** Holds the lease on {@code jobName} under {@code epoch} until {@code validUntilNanos}, replacing an older one. */
    void hold(String jobName, long epoch, long validUntilNanos) {
        held.put(jobName, new Lease(epoch, validUntilNanos));
    }

    /**
     * Moves the deadline of the lease on {@code jobName} under {@code epoch} to {@code validUntilNanos} if that is later,
     * but only while the lease still holds: a lease past its deadline is lost for good, whatever a renewal answers. Why: a
     * process woken from a pause (kill -STOP, a long GC) still has its old cluster view for a moment, so a renewal it sends
     * then can be applied to its own stale copy of the job store and answer "still yours" although another node took the
     * job meanwhile; only a new assignment (under a new epoch) gives the job back.
     *
     * @return whether the lease holds and was moved (or already ran that long)
     */
    boolean extend(String jobName, long epoch, long validUntilNanos) {
        long now = nanos.getAsLong();
        Lease after = held.computeIfPresent(jobName, (name, lease) -> lease.epoch() == epoch && now - lease.validUntilNanos() < 0
                && validUntilNanos - lease.validUntilNanos() > 0 ? new Lease(epoch, validUntilNanos) : lease);
        return after != null && after.epoch() == epoch && now - after.validUntilNanos() < 0;
    }

    /** Drops the lease on {@code jobName} if it is the one of {@code epoch}. */
    void release(String jobName, long epoch) {
        held.computeIfPresent(jobName, (name, lease) -> lease.epoch() == epoch ? null : lease);
    }
}
