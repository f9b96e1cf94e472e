package io.weir.coordinator.standalone;

import io.weir.core.checkpoint.CompletedCheckpoint;
import io.weir.core.ha.CompletedCheckpointStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * In-memory completed-checkpoint store keeping the newest {@code num-retained} checkpoints
 * (PROTOCOL.md §2, §7). Thread-safe; {@code onSubsumed} is called without holding the store's lock.
 */
public final class StandaloneCompletedCheckpointStore implements CompletedCheckpointStore {
    private static final Logger LOG = LoggerFactory.getLogger(StandaloneCompletedCheckpointStore.class);

    private final String jobName;
    private final int maxRetained;
    /** Oldest first. Guarded by {@code this}. */
    private final ArrayDeque<CompletedCheckpoint> checkpoints = new ArrayDeque<>();

    /**
     * @param jobName the job, for messages
     * @param maxRetained checkpoints kept, ≥ 1
     * @throws IllegalArgumentException if {@code maxRetained} is below 1
     */
    public StandaloneCompletedCheckpointStore(String jobName, int maxRetained) {
        if (maxRetained < 1) {
            throw new IllegalArgumentException("job " + jobName + ": num-retained must be >= 1, got " + maxRetained);
        }
        this.jobName = jobName;
        this.maxRetained = maxRetained;
    }

    /**
     * {@inheritDoc}
     * <p>An {@code onSubsumed} that throws is logged and does not stop the other subsumed checkpoints
     * from being passed to it.
     */
    @Override
    public void addCheckpointAndSubsumeOldest(CompletedCheckpoint checkpoint, Consumer<CompletedCheckpoint> onSubsumed) {
        List<CompletedCheckpoint> subsumed = new ArrayList<>();
        synchronized (this) {
            CompletedCheckpoint latest = checkpoints.peekLast();
            if (latest != null && checkpoint.checkpointId() <= latest.checkpointId()) {
                throw new IllegalArgumentException("job " + jobName + ": checkpoint " + checkpoint.checkpointId()
                        + " is not newer than the latest stored checkpoint " + latest.checkpointId());
            }
            checkpoints.addLast(checkpoint);
            while (checkpoints.size() > maxRetained) {
                subsumed.add(checkpoints.pollFirst());
            }
        }
        for (CompletedCheckpoint old : subsumed) {
            try {
                onSubsumed.accept(old);
            } catch (RuntimeException e) {
                LOG.warn("Discarding subsumed checkpoint {} of job {} failed", old.checkpointId(), jobName, e);
            }
        }
    }

    @Override
    public synchronized Optional<CompletedCheckpoint> getLatestCheckpoint() {
        return Optional.ofNullable(checkpoints.peekLast());
    }

    @Override
    public synchronized List<CompletedCheckpoint> getAllCheckpoints() {
        return List.copyOf(checkpoints);
    }

    @Override
    public int getMaxNumberOfRetainedCheckpoints() {
        return maxRetained;
    }
}
