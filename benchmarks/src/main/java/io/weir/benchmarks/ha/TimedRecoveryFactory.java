package io.weir.benchmarks.ha;

import io.weir.core.checkpoint.CompletedCheckpoint;
import io.weir.core.ha.CheckpointIDCounter;
import io.weir.core.ha.CheckpointRecoveryFactory;
import io.weir.core.ha.CompletedCheckpointStore;
import io.weir.core.storage.CheckpointStorage;

import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;

/**
 * Wraps a {@link CheckpointRecoveryFactory} and times, per checkpoint id, the two HA writes on a checkpoint's path:
 * drawing its id from the counter and adding it to the completed store. The coordinator's end-to-end duration runs
 * from just after the id is drawn to {@code _metadata} being durable, so it contains neither; this is how the
 * benchmark sees what the Hazelcast store adds (docs/ha.md "Figures").
 *
 * <p>Thread-safe: the timings are concurrent maps written by the coordinator's timer thread and read by the
 * benchmark's main thread.
 */
public final class TimedRecoveryFactory implements CheckpointRecoveryFactory {
    private final CheckpointRecoveryFactory delegate;
    /** Checkpoint id → ns its {@code getAndIncrement} took. */
    private final Map<Long, Long> drawNanos = new ConcurrentHashMap<>();
    /** Checkpoint id → ns its {@code addCheckpointAndSubsumeOldest} took (successful adds only). */
    private final Map<Long, Long> addNanos = new ConcurrentHashMap<>();

    /** @param delegate the factory whose counters and stores the job uses */
    public TimedRecoveryFactory(CheckpointRecoveryFactory delegate) {
        this.delegate = Objects.requireNonNull(delegate, "delegate");
    }

    /** @return the time checkpoint {@code id}'s id draw took, in ms; empty if no draw returned {@code id} */
    public OptionalDouble idDrawMs(long id) {
        return ms(drawNanos.get(id));
    }

    /** @return the time adding checkpoint {@code id} to the store took, in ms; empty if it was not added */
    public OptionalDouble storeAddMs(long id) {
        return ms(addNanos.get(id));
    }

    private static OptionalDouble ms(Long nanos) {
        return nanos == null ? OptionalDouble.empty() : OptionalDouble.of(nanos / 1e6);
    }

    @Override
    public String type() {
        return delegate.type();
    }

    @Override
    public CheckpointIDCounter createCheckpointIDCounter(String jobName) throws Exception {
        return new TimedCounter(delegate.createCheckpointIDCounter(jobName));
    }

    @Override
    public CheckpointIDCounter createCheckpointIDCounter(String jobName, CheckpointStorage storage) throws Exception {
        return new TimedCounter(delegate.createCheckpointIDCounter(jobName, storage));
    }

    @Override
    public CompletedCheckpointStore createCompletedCheckpointStore(String jobName, int maxRetained) throws Exception {
        return new TimedStore(delegate.createCompletedCheckpointStore(jobName, maxRetained));
    }

    @Override
    public CompletedCheckpointStore createCompletedCheckpointStore(String jobName, int maxRetained, CheckpointStorage storage)
            throws Exception {
        return new TimedStore(delegate.createCompletedCheckpointStore(jobName, maxRetained, storage));
    }

    @Override
    public boolean fencesRuns() {
        return delegate.fencesRuns();
    }

    private final class TimedCounter implements CheckpointIDCounter {
        private final CheckpointIDCounter counter;

        TimedCounter(CheckpointIDCounter counter) {
            this.counter = counter;
        }

        @Override
        public long getAndIncrement() throws Exception {
            long t0 = System.nanoTime();
            long id = counter.getAndIncrement();
            drawNanos.put(id, System.nanoTime() - t0);
            return id;
        }

        @Override
        public long get() throws Exception {
            return counter.get();
        }

        @Override
        public void setCount(long next) throws Exception {
            counter.setCount(next);
        }
    }

    private final class TimedStore implements CompletedCheckpointStore {
        private final CompletedCheckpointStore store;

        TimedStore(CompletedCheckpointStore store) {
            this.store = store;
        }

        @Override
        public void addCheckpointAndSubsumeOldest(CompletedCheckpoint checkpoint, Consumer<CompletedCheckpoint> onSubsumed)
                throws Exception {
            long t0 = System.nanoTime();
            store.addCheckpointAndSubsumeOldest(checkpoint, onSubsumed);
            addNanos.put(checkpoint.checkpointId(), System.nanoTime() - t0);
        }

        @Override
        public Optional<CompletedCheckpoint> getLatestCheckpoint() throws Exception {
            return store.getLatestCheckpoint();
        }

        @Override
        public List<CompletedCheckpoint> getAllCheckpoints() throws Exception {
            return store.getAllCheckpoints();
        }

        @Override
        public int getMaxNumberOfRetainedCheckpoints() {
            return store.getMaxNumberOfRetainedCheckpoints();
        }
    }
}
