package io.weir.ha.hazelcast.checkpoint;

import io.weir.ha.hazelcast.member.Fenced;

import java.io.Serializable;

/**
 * The value of a job's entry in the counter map.
 *
 * @param next the id the next increment returns, ≥ 1
 * @param epoch the newest fencing epoch that wrote the entry, ≥ 0
 */
public record CounterState(long next, long epoch) implements Serializable, Fenced {
    /** @throws IllegalArgumentException if {@code next} is below 1 or {@code epoch} below 0 */
    public CounterState {
        if (next < 1 || epoch < 0) {
            throw new IllegalArgumentException("counter state needs next >= 1 and epoch >= 0, got next " + next + ", epoch " + epoch);
        }
    }

    /** @return the next id: after a split, the copy that handed out more ids wins */
    @Override
    public long progress() {
        return next;
    }
}
