package io.weir.core.ha;

import io.weir.core.storage.CheckpointStorage;

/**
 * Creates the per-job ID counter and completed store: standalone (in memory) or highly available
 * (Hazelcast). Found as an OSGi service or through ServiceLoader. Thread-safe.
 */
public interface CheckpointRecoveryFactory {
    /** @return the kind, {@code "standalone"} or {@code "hazelcast"} */
    String type();

    /** @return the job's counter */
    CheckpointIDCounter createCheckpointIDCounter(String jobName) throws Exception;

    /** @return the job's store keeping at most {@code maxRetained} checkpoints */
    CompletedCheckpointStore createCompletedCheckpointStore(String jobName, int maxRetained) throws Exception;

    /**
     * The job's counter, for a job whose checkpoints live in {@code storage}. A highly available counter
     * starts above the highest {@code chk-<id>} there ({@link CheckpointStorage#highestCheckpointId()}) when it
     * has no value of its own (e.g. after a restart of the whole cluster). The default ignores {@code storage}.
     *
     * @param jobName the job
     * @param storage the job's checkpoint storage, opened by the caller
     * @return the job's counter
     * @throws Exception if the counter cannot be created (e.g. this node does not own the job)
     */
    default CheckpointIDCounter createCheckpointIDCounter(String jobName, CheckpointStorage storage) throws Exception {
        return createCheckpointIDCounter(jobName);
    }

    /**
     * The job's store, which reads the {@code _metadata} of checkpoints other processes added from
     * {@code storage}. The default ignores {@code storage}.
     *
     * @param jobName the job
     * @param maxRetained checkpoints kept, ≥ 1
     * @param storage the job's checkpoint storage, opened by the caller
     * @return the job's store
     * @throws Exception if the store cannot be created (e.g. this node does not own the job)
     */
    default CompletedCheckpointStore createCompletedCheckpointStore(String jobName, int maxRetained, CheckpointStorage storage)
            throws Exception {
        return createCompletedCheckpointStore(jobName, maxRetained);
    }

    /**
     * Whether this factory fences runs of a job itself (an epoch checked on every write of the counter and the
     * store), so that the storage's run lock ({@link CheckpointStorage#lockRun()}) is not taken: a paused former
     * owner still holds its operating-system lock while the new owner must already run the job.
     *
     * @return false by default: the run lock keeps a second run of the job out
     */
    default boolean fencesRuns() {
        return false;
    }
}
