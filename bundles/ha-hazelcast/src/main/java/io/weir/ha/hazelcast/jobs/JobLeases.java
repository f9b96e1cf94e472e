package io.weir.ha.hazelcast.jobs;

import io.weir.ha.hazelcast.checkpoint.JobEpochs;

import java.util.Map;
import java.util.OptionalLong;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The leases this node holds: job name → the fencing epoch it was assigned the job under. A lease is added just
 * before the node starts its run of the job and removed before the run is stopped, so the checkpoint id counter
 * and completed store of a run that lost its lease cannot even be created again (a restart of the job fails).
 * Thread-safe (a concurrent map).
 */
public final class JobLeases implements JobEpochs {
    private final Map<String, Long> held = new ConcurrentHashMap<>();

    /**
     * @throws IllegalStateException naming the job if this node holds no lease on it
     */
    @Override
    public long epochOf(String jobName) {
        Long epoch = held.get(jobName);
        if (epoch == null) {
            throw new IllegalStateException("job " + jobName + ": this node holds no lease on it (another node owns it, or the"
                    + " node lost its lease); it must not run it");
        }
        return epoch;
    }

    @Override
    public boolean holds(String jobName, long epoch) {
        Long held = this.held.get(jobName);
        return held != null && held == epoch;
    }

    /** @return the epoch of the lease on {@code jobName}, empty if none is held */
    public OptionalLong find(String jobName) {
        Long epoch = held.get(jobName);
        return epoch == null ? OptionalLong.empty() : OptionalLong.of(epoch);
    }

    /** Holds the lease on {@code jobName} under {@code epoch}, replacing an older one. */
    void hold(String jobName, long epoch) {
        held.put(jobName, epoch);
    }

    /** Drops the lease on {@code jobName} if it is the one of {@code epoch}. */
    void release(String jobName, long epoch) {
        held.remove(jobName, epoch);
    }
}
