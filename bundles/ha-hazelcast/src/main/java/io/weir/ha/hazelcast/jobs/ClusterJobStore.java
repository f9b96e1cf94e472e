package io.weir.ha.hazelcast.jobs;

import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.map.IMap;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionStage;

/**
 * The cluster's submitted jobs: an {@link IMap} ({@value #MAP}, two synchronous backups) from job name to
 * {@link ClusterJob}, changed only through {@link JobStoreProcessor}. Thread-safe (a view over the map).
 */
public final class ClusterJobStore {
    /** The job store map's name. */
    public static final String MAP = "weir.jobs";

    private final IMap<String, ClusterJob> map;

    /** @param member the running member */
    public ClusterJobStore(HazelcastInstance member) {
        this.map = member.getMap(MAP);
    }

    /**
     * @param job the job to add (its owner, status and epoch are set by the store)
     * @return the stored job
     * @throws IllegalStateException naming the job and its owner if a job of that name is RUNNING
     */
    public ClusterJob submit(ClusterJob job) {
        JobStoreProcessor.Result r = map.executeOnKey(job.name(), new JobStoreProcessor(JobStoreProcessor.Op.SUBMIT, job, null, null,
                0, null, null));
        if (!r.ok()) {
            throw new IllegalStateException("job " + job.name() + " is already running in the cluster"
                    + (r.job().ownerUrl().isEmpty() ? " (waiting for a node)" : " on " + r.job().ownerUrl())
                    + "; cancel it first or submit under another name");
        }
        return r.job();
    }

    /** @return whether the assignment applied (false: someone else changed the job first) */
    public boolean assign(String name, long seenEpoch, String member, String url) {
        return map.executeOnKey(name, new JobStoreProcessor(JobStoreProcessor.Op.ASSIGN, null, member, url, seenEpoch, null, null)).ok();
    }

    /** @return completes with whether {@code member} still owns the running job under {@code epoch} */
    public CompletionStage<JobStoreProcessor.Result> renewAsync(String name, String member, long epoch) {
        return map.submitToKey(name, new JobStoreProcessor(JobStoreProcessor.Op.RENEW, null, member, null, epoch, null, null));
    }

    /** @return whether the end was recorded (false: {@code member} no longer owns the job under {@code epoch}) */
    public boolean end(String name, String member, long epoch, ClusterJobStatus status, String message) {
        return map.executeOnKey(name, new JobStoreProcessor(JobStoreProcessor.Op.END, null, member, null, epoch, status, message)).ok();
    }

    /**
     * @return the cancelled job
     * @throws IllegalArgumentException naming the job if the cluster has no such job or it already ended
     */
    public ClusterJob cancel(String name) {
        JobStoreProcessor.Result r = map.executeOnKey(name, new JobStoreProcessor(JobStoreProcessor.Op.CANCEL, null, null, null, 0,
                null, null));
        if (!r.ok()) {
            throw new IllegalArgumentException(r.job() == null ? "the cluster has no job " + name
                    : "job " + name + " already ended (" + r.job().status() + ")");
        }
        return r.job();
    }

    /** @return every job of the cluster, by name */
    public List<ClusterJob> all() {
        List<ClusterJob> jobs = new ArrayList<>(map.values());
        jobs.sort(Comparator.comparing(ClusterJob::name));
        return jobs;
    }

    /** @return the job, or null */
    public ClusterJob get(String name) {
        return map.get(name);
    }

    /** @return the underlying map (tests) */
    Map<String, ClusterJob> map() {
        return map;
    }
}
