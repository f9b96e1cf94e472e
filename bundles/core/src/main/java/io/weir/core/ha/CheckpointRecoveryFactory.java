package io.weir.core.ha;

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
}
