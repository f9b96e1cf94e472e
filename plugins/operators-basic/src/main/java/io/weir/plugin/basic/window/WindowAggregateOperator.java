package io.weir.plugin.basic.window;

import io.weir.api.Field;
import io.weir.api.FieldType;
import io.weir.api.Row;
import io.weir.api.RowSerializer;
import io.weir.api.Schema;
import io.weir.api.operator.OperatorContext;
import io.weir.api.operator.Output;
import io.weir.api.operator.StreamOperator;
import io.weir.api.operator.TimeDomain;
import io.weir.api.operator.TimerService;
import io.weir.api.serialization.Serializers;
import io.weir.api.state.MapState;
import io.weir.api.state.StateDescriptor;
import io.weir.plugin.basic.aggregate.AggregatePlan;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Event-time window aggregation per key (Flink's {@code WindowOperator} with an {@code AggregateFunction} and
 * the event-time trigger, written for Weir on the {@link TimerService}).
 *
 * <p>Per key, keyed state holds its open windows: {@value #ENDS} (window start → end, ms) and
 * {@value #ACCUMULATORS} (window start → accumulator of {@link AggregatePlan}). A row joins every window it
 * falls into ([start, end)); each window has an event-time timer at {@code end - 1}: when the watermark passes
 * it the window emits one row (key fields, {@code window_start}, {@code window_end}, the aggregates). With
 * {@code allowed-lateness} L the window is kept until the watermark passes {@code end - 1 + L}; a row arriving
 * meanwhile updates it and emits the updated row at once. A row whose windows are all past that point is late:
 * counted ({@link #lateRecords()}, logged at each checkpoint when it grew) and, with {@code late-output},
 * emitted to that side output unchanged. Session windows start as {@code [t, t + gap)} and merge with every
 * window of the key they touch or overlap (accumulators merged with {@link AggregatePlan#merge}).
 *
 * <p>Timers are never deleted: a timer whose window merged away or was already cleaned up finds nothing to do.
 * Task thread only.
 */
public final class WindowAggregateOperator implements StreamOperator {
    private static final Logger LOG = LoggerFactory.getLogger(WindowAggregateOperator.class);
    /** Keyed map state: window start → end. Stable name (checkpoint format). */
    public static final String ENDS = "window-ends";
    /** Keyed map state: window start → accumulator. Stable name (checkpoint format). */
    public static final String ACCUMULATORS = "window-accumulators";

    private final AggregatePlan plan;
    private final WindowSpec spec;
    private final Schema output;
    // Task thread only.
    private OperatorContext context;
    private TimerService timers;
    private MapState<Long, Long> ends;
    private MapState<Long, Row> accumulators;
    private long lateRecords;
    private long lateRecordsLogged;

    /**
     * @param plan the aggregates (as keyed-aggregate)
     * @param spec the windows
     */
    public WindowAggregateOperator(AggregatePlan plan, WindowSpec spec) {
        this.plan = plan;
        this.spec = spec;
        this.output = outputSchema(plan);
    }

    /** @return key fields, {@code window_start} and {@code window_end} (timestamps), then the aggregates */
    public static Schema outputSchema(AggregatePlan plan) {
        List<Field> fields = new ArrayList<>(plan.outputSchema().fields());
        fields.add(plan.keyCount(), new Field("window_end", FieldType.TIMESTAMP));
        fields.add(plan.keyCount(), new Field("window_start", FieldType.TIMESTAMP));
        return new Schema(fields);
    }

    /** @throws IllegalStateException if the input is not keyed (no keyed state and no timers) */
    @Override
    public void initializeState(OperatorContext context) {
        this.context = context;
        this.timers = context.timerService();
        this.ends = context.keyedState().getState(new StateDescriptor.Map<>(ENDS, Serializers.LONG, Serializers.LONG));
        this.accumulators = context.keyedState().getState(new StateDescriptor.Map<>(ACCUMULATORS, Serializers.LONG,
                new RowSerializer(plan.accumulatorSchema())));
    }

    /** @return rows that came too late for every window since this subtask started */
    public long lateRecords() {
        return lateRecords;
    }

    @Override
    public void processElement(Row row, Output out) {
        long ts = spec.timestamps().extract(row);
        long watermark = timers.currentWatermark();
        boolean accepted = spec.kind() == WindowSpec.Kind.SESSION ? addToSession(row, ts, watermark, out)
                : addToFixedWindows(row, ts, watermark, out);
        if (!accepted) {
            lateRecords++;
            if (spec.lateOutput() != null) {
                context.sideOutput(spec.lateOutput(), row);
            }
        }
    }

    private boolean isExpired(long end, long watermark) {
        return end - 1 + spec.allowedLatenessMs() <= watermark;
    }

    private boolean addToFixedWindows(Row row, long ts, long watermark, Output out) {
        boolean accepted = false;
        long lastStart = ts - Math.floorMod(ts, spec.slideMs());
        for (long start = lastStart; start > ts - spec.sizeMs(); start -= spec.slideMs()) {
            long end = start + spec.sizeMs();
            if (isExpired(end, watermark)) {
                continue;
            }
            accepted = true;
            Row acc = plan.accumulate(accumulators.get(start), row);
            accumulators.put(start, acc);
            if (!ends.contains(start)) {
                ends.put(start, end);
                registerTimers(end);
            }
            if (end - 1 <= watermark) {
                out.collect(result(acc, row, start, end)); // late row within the allowed lateness: updated result
            }
        }
        return accepted;
    }

    private boolean addToSession(Row row, long ts, long watermark, Output out) {
        long start = ts;
        long end = ts + spec.sizeMs();
        if (isExpired(end, watermark)) {
            return false;
        }
        Row acc = plan.accumulate((Row) null, row);
        List<Long> merged = new ArrayList<>();
        for (Map.Entry<Long, Long> w : ends.entries().entrySet()) {
            // windows that touch or overlap join (Flink's TimeWindow.intersects)
            if (w.getKey() <= end && w.getValue() >= start) {
                merged.add(w.getKey());
            }
        }
        for (long s : merged) {
            start = Math.min(start, s);
            end = Math.max(end, ends.get(s));
            acc = plan.merge(acc, accumulators.get(s));
            ends.remove(s);
            accumulators.remove(s);
        }
        ends.put(start, end);
        accumulators.put(start, acc);
        registerTimers(end);
        if (end - 1 <= watermark) {
            out.collect(result(acc, row, start, end));
        }
        return true;
    }

    private void registerTimers(long end) {
        timers.registerEventTimeTimer(end - 1);
        if (spec.allowedLatenessMs() > 0) {
            timers.registerEventTimeTimer(end - 1 + spec.allowedLatenessMs());
        }
    }

    /** Fires the key's windows ending at {@code timestamp + 1} and drops those past their allowed lateness. */
    @Override
    public void onTimer(long timestamp, Row key, TimeDomain domain, Output out) {
        if (domain != TimeDomain.EVENT_TIME) {
            return;
        }
        List<Map.Entry<Long, Long>> windows = new ArrayList<>(ends.entries().entrySet());
        windows.sort(Map.Entry.comparingByKey());
        for (Map.Entry<Long, Long> w : windows) {
            long start = w.getKey();
            long end = w.getValue();
            if (end - 1 == timestamp) {
                out.collect(result(accumulators.get(start), key, start, end));
            }
            if (isExpired(end, timestamp)) {
                ends.remove(start);
                accumulators.remove(start);
            }
        }
    }

    @Override
    public void snapshotState(long checkpointId) {
        if (lateRecords != lateRecordsLogged) {
            LOG.info("window-aggregate '{}' subtask {} of job {}: {} late records so far (beyond allowed lateness {} ms{}) at checkpoint {}",
                    context.operatorId(), context.subtaskIndex(), context.jobName(), lateRecords, spec.allowedLatenessMs(),
                    spec.lateOutput() == null ? ", dropped" : ", sent to side output '" + spec.lateOutput() + "'", checkpointId);
            lateRecordsLogged = lateRecords;
        }
    }

    private Row result(Row acc, Row keySource, long start, long end) {
        Row r = plan.resultForKey(acc, keySource);
        Object[] values = new Object[output.size()];
        int k = plan.keyCount();
        for (int i = 0; i < k; i++) {
            values[i] = r.get(i);
        }
        values[k] = start;
        values[k + 1] = end;
        for (int i = k; i < r.arity(); i++) {
            values[i + 2] = r.get(i);
        }
        return new Row(output, values);
    }
}
