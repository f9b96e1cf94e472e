package io.weir.coordinator.standalone;

import io.weir.core.ha.CheckpointIDCounter;
import io.weir.core.ha.CheckpointRecoveryFactory;
import io.weir.core.ha.CompletedCheckpointStore;
import org.osgi.service.component.annotations.Component;

/**
 * Creates in-memory ({@code "standalone"}) id counters and completed stores: nothing survives the
 * process; restore then falls back to the storage's newest {@code _metadata}. Registered as an OSGi
 * DS service ({@code weir.type=standalone}) and listed in {@code META-INF/services}. Stateless and
 * thread-safe.
 */
@Component(service = CheckpointRecoveryFactory.class, property = "weir.type=standalone")
public final class StandaloneCheckpointRecoveryFactory implements CheckpointRecoveryFactory {

    /** Public no-arg constructor for DS and ServiceLoader. */
    public StandaloneCheckpointRecoveryFactory() {
    }

    @Override
    public String type() {
        return "standalone";
    }

    @Override
    public CheckpointIDCounter createCheckpointIDCounter(String jobName) {
        return new StandaloneCheckpointIDCounter();
    }

    /** @throws IllegalArgumentException if {@code maxRetained} is below 1 */
    @Override
    public CompletedCheckpointStore createCompletedCheckpointStore(String jobName, int maxRetained) {
        return new StandaloneCompletedCheckpointStore(jobName, maxRetained);
    }
}
