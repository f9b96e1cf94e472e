package io.weir.plugin.basic.aggregate;

/**
 * One key's running aggregates, changed in place by {@link AggregatePlan#accumulate(Accumulator, io.weir.api.Row)}: the number
 * of rows, and per slot of {@link AggregatePlan#accumulatorSchema()} (position 1 on) a long or a double (kept as its
 * raw bits) in {@link #words} with a {@link #set} flag (unset = null in the row form), or an object (a min/max's
 * current extreme, null until the first value) in {@link #extremes}. No boxing: accumulating a row allocates nothing.
 *
 * <p>Kept in keyed state by read-modify-write ({@code ValueState.value()}, change, {@code update()}); its
 * serializer ({@link AggregatePlan#accumulatorSerializer()}) writes the binary form of the accumulator row, so
 * checkpoints are those of the row-valued state. Not thread-safe: the task thread that owns the key.
 */
public final class Accumulator {
    /** Rows accumulated, nulls included. */
    long count;
    /** Per slot (index = accumulator-schema position): a long, or a double's raw bits; null with no slot but count. */
    final long[] words;
    /** Per slot: whether {@link #words} holds a value; null with no slot but count. */
    final boolean[] set;
    /** Per slot: a min/max's current extreme (immutable values of the input rows); null without min/max. */
    final Object[] extremes;

    /**
     * @param slots the accumulator schema's size (count included)
     * @param withExtremes whether the plan has a min or max aggregate
     */
    Accumulator(int slots, boolean withExtremes) {
        this.words = slots > 1 ? new long[slots] : null;
        this.set = slots > 1 ? new boolean[slots] : null;
        this.extremes = withExtremes ? new Object[slots] : null;
    }

    private Accumulator(Accumulator from) {
        this.count = from.count;
        this.words = from.words == null ? null : from.words.clone();
        this.set = from.set == null ? null : from.set.clone();
        this.extremes = from.extremes == null ? null : from.extremes.clone();
    }

    /** @return an independent copy (the extremes are immutable and shared) */
    Accumulator copy() {
        return new Accumulator(this);
    }

    /** @return the number of rows accumulated */
    public long count() {
        return count;
    }

    @Override
    public String toString() {
        return "Accumulator{count=" + count + (words == null ? "" : ", words=" + java.util.Arrays.toString(words)
                + ", set=" + java.util.Arrays.toString(set)) + (extremes == null ? "" : ", extremes="
                + java.util.Arrays.toString(extremes)) + "}";
    }
}
