package io.weir.ha.hazelcast.member;

import com.hazelcast.nio.ObjectDataInput;
import com.hazelcast.nio.ObjectDataOutput;
import com.hazelcast.spi.merge.MergingValue;
import com.hazelcast.spi.merge.SplitBrainMergePolicy;

/**
 * How an entry of a Weir map is merged when two sides of a split cluster join again: the copy with the newer fencing
 * epoch wins, then the one further along ({@link Fenced#progress()}); on a tie, or for a value that is not
 * {@link Fenced}, the copy of the cluster merged into stays.
 *
 * <p>Why: Hazelcast's default ({@code PutIfAbsentMergePolicy}) keeps the surviving side's copy whatever the other side
 * wrote during the split. A false suspicion under load (a heartbeat gap just over {@code max-no-heartbeat}) splits a
 * one-host cluster for a few seconds; the side that then merges may hold the newer state (the job's owner kept adding
 * checkpoints until its watchdog stopped it, and its 2PC sinks committed them). Keeping the older store entry would
 * restore the job from a checkpoint older than output already committed (duplicates), and an older job-store epoch
 * would hand out an epoch that a run already used. Stateless; Hazelcast creates it by class name.
 */
public final class FencedMergePolicy implements SplitBrainMergePolicy<Object, MergingValue<Object>, Object> {
    /** Hazelcast instantiates the policy reflectively. */
    public FencedMergePolicy() {
    }

    @Override
    public Object merge(MergingValue<Object> merging, MergingValue<Object> existing) {
        if (existing == null) {
            return merging.getRawValue();
        }
        if (merging == null) {
            return existing.getRawValue();
        }
        return newer(merging.getDeserializedValue(), existing.getDeserializedValue()) ? merging.getRawValue() : existing.getRawValue();
    }

    /** @return whether {@code merging} must replace {@code existing} */
    static boolean newer(Object merging, Object existing) {
        if (!(merging instanceof Fenced m) || !(existing instanceof Fenced e)) {
            return existing == null && merging != null;
        }
        return m.epoch() != e.epoch() ? m.epoch() > e.epoch() : m.progress() > e.progress();
    }

    @Override
    public void writeData(ObjectDataOutput out) {
        // stateless
    }

    @Override
    public void readData(ObjectDataInput in) {
        // stateless
    }
}
