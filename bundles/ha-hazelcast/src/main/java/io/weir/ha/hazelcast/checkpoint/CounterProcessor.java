package io.weir.ha.hazelcast.checkpoint;

import com.hazelcast.map.EntryProcessor;

import java.util.Map;

/**
 * The only way a job's counter entry changes: runs atomically on the key's partition owner (and, with the
 * same input, on its backups). It never lowers the counter and refuses a writer whose epoch is older than
 * the stored one. Immutable and serializable (sent to the owning member).
 *
 * @param op what to do
 * @param epoch the writer's fencing epoch, ≥ 1
 * @param value for {@link Op#RAISE}: the least value of {@code next} afterwards; unused otherwise
 */
public record CounterProcessor(Op op, long epoch, long value) implements EntryProcessor<String, CounterState, CounterProcessor.Result> {
    private static final long serialVersionUID = 1L;

    /** The operations. */
    public enum Op {
        /** Returns {@code next} and advances it by one. */
        INCREMENT,
        /** Sets {@code next} to {@code max(next, value)}. */
        RAISE,
        /** Removes the entry (a globally terminal job); an absent entry is not an error (idempotent). */
        REMOVE
    }

    /**
     * @param refused true if the stored epoch is newer than the writer's (then nothing changed)
     * @param value for INCREMENT the id handed out; for RAISE the new {@code next}; for REMOVE 0
     * @param storedEpoch the epoch stored after the operation (or the newer one that refused it)
     */
    public record Result(boolean refused, long value, long storedEpoch) implements java.io.Serializable {
    }

    @Override
    public Result process(Map.Entry<String, CounterState> entry) {
        CounterState state = entry.getValue();
        if (state != null && state.epoch() > epoch) {
            return new Result(true, 0, state.epoch());
        }
        long next = state == null ? 1 : state.next();
        switch (op) {
            case INCREMENT -> {
                entry.setValue(new CounterState(next + 1, epoch));
                return new Result(false, next, epoch);
            }
            case RAISE -> {
                long raised = Math.max(next, value);
                entry.setValue(new CounterState(raised, epoch));
                return new Result(false, raised, epoch);
            }
            case REMOVE -> {
                if (state != null) {
                    entry.setValue(null);
                }
                return new Result(false, 0, epoch);
            }
            default -> throw new IllegalStateException("unknown counter operation " + op);
        }
    }
}
