package io.weir.plugin.basic.aggregate;

import io.weir.api.Row;
import io.weir.api.RowSerializer;
import io.weir.api.operator.OperatorContext;
import io.weir.api.operator.Output;
import io.weir.api.operator.StreamOperator;
import io.weir.api.state.StateDescriptor;
import io.weir.api.state.ValueState;
import io.weir.plugin.basic.RecordThrottle;

/**
 * Running aggregates per key, emitted as an upsert stream: after the n-th row of key K it emits
 * K's aggregates over those n rows. State: one {@link ValueState} {@value #STATE_NAME} per key
 * holding a mutable {@link Accumulator}, changed in place per row by read-modify-write (see
 * {@link ValueState}; the heap backend copies it only while a snapshot still holds it) and stored in the binary
 * form of the accumulator row ({@link AggregatePlan#accumulatorSchema()}), snapshotted by the state
 * backend (PROTOCOL.md §7). Per row it allocates only the output row, and of that only the boxed aggregates
 * when its output does not retain rows ({@link Output#retainsRows()} false, e.g. a chained sink that counts or
 * serializes each row): it then overwrites and emits one {@link Row.Reusable} row. Task thread only.
 */
public final class KeyedAggregateOperator implements StreamOperator {
    /** Name of the keyed value state holding each key's accumulator; stable across versions. */
    public static final String STATE_NAME = "accumulator";

    private final AggregatePlan plan;
    private final RecordThrottle throttle;
    // Task thread only.
    private ValueState<Accumulator> accumulators;
    /** Version 1.1's moments per key; null without stddev columns. Task thread only. */
    private ValueState<Row> moments;
    private OperatorContext context;
    /** Version 1.1's stddev columns, or null (1.0, or no avg aggregate). */
    private final StddevColumns stddev;
    /** The output row emitted to outputs that do not retain rows; created on first use. Task thread only. */
    private Row.Reusable reusedOutput;

    /**
     * @param plan the compiled config
     * @param throttle pause per record
     */
    public KeyedAggregateOperator(AggregatePlan plan, RecordThrottle throttle) {
        this(plan, throttle, null);
    }

    /**
     * @param plan the compiled config
     * @param throttle pause per record
     * @param stddev version 1.1's stddev columns, or null for none
     */
    public KeyedAggregateOperator(AggregatePlan plan, RecordThrottle throttle, StddevColumns stddev) {
        this.plan = plan;
        this.throttle = throttle;
        this.stddev = stddev;
    }

    /** @throws IllegalStateException if the input is not keyed (see {@link OperatorContext#keyedState()}) */
    @Override
    public void initializeState(OperatorContext context) {
        this.context = context;
        this.accumulators = context.keyedState().getState(
                new StateDescriptor.Value<>(STATE_NAME, plan.accumulatorSerializer()));
        if (stddev != null) {
            this.moments = context.keyedState().getState(
                    new StateDescriptor.Value<>(StddevColumns.STATE_NAME, new RowSerializer(stddev.momentsSchema())));
        }
    }

    /**
     * @return the key fields and the aggregates' input fields ({@link AggregatePlan#fieldsRead}), or null (every
     *         field) with stddev columns
     */
    @Override
    public int[] inputFieldsRead() {
        return stddev == null ? plan.fieldsRead() : null;
    }

    /**
     * Folds the row into its key's accumulator and emits the key's updated aggregates.
     *
     * @throws IllegalStateException if a long sum overflows (naming operator, subtask and row) or the
     *         thread is interrupted during the configured pause
     */
    @Override
    public void processElement(Row row, Output out) {
        throttle.pause();
        Accumulator acc;
        try {
            acc = plan.accumulate(accumulators.value(), row);
        } catch (ArithmeticException e) {
            throw new IllegalStateException("keyed-aggregate " + context.operatorId() + " subtask "
                    + context.subtaskIndex() + " of job " + context.jobName() + ": sum overflows long at row " + describe(row), e);
        }
        accumulators.update(acc);
        if (stddev == null && !out.retainsRows()) {
            if (reusedOutput == null) {
                reusedOutput = new Row.Reusable(plan.outputSchema());
            }
            out.collect(plan.resultInto(acc, row, reusedOutput));
            return;
        }
        Row result = plan.result(acc, row);
        if (stddev != null) {
            Row m = stddev.accumulate(moments.value(), row);
            moments.update(m);
            result = stddev.extend(result, m);
        }
        out.collect(result);
    }

    /**
     * @return false without stddev columns: an input row is folded into its accumulator and its key values copied
     *         into the output row, so none is referenced after {@link #processElement} returns and the runtime may
     *         read each input record into one reused row; true (the default) with stddev columns
     */
    @Override
    public boolean retainsInputRows() {
        return stddev != null;
    }

    /** The fields of {@code row} this operator reads (the only ones decoded, see {@link #inputFieldsRead}). */
    private String describe(Row row) {
        int[] read = inputFieldsRead();
        if (read == null) {
            return row.toString();
        }
        StringBuilder sb = new StringBuilder("{");
        for (int p : java.util.Arrays.stream(read).distinct().toArray()) {
            sb.append(sb.length() > 1 ? ", " : "").append(row.schema().field(p).name()).append('=').append(row.get(p));
        }
        return sb.append('}').toString();
    }
}
