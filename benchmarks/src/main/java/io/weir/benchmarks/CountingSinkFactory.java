package io.weir.benchmarks;

import java.util.concurrent.atomic.LongAdder;

/**
 * The benchmark-only {@code count-sink}: drops rows after adding one per row to a counter owned by
 * the harness, which samples it to compute records/s. Rows are counted when written, not when
 * committed (throughput of the pipeline, not of commits). Thread-safe. The counter is a {@link LongAdder}, as in
 * the Flink reference harness ({@code bench.Job.PROCESSED}): with one shared {@code AtomicLong} every row of both
 * counter subtasks was an atomic increment of one cache line that the two cores took from each other.
 */
public final class CountingSinkFactory extends RowObserverSinkFactory {
    /** The type name in job files. */
    public static final String TYPE = "count-sink";

    /** @param rows incremented once per row written by any subtask of any sink this factory creates */
    public CountingSinkFactory(LongAdder rows) {
        super(TYPE, rows::increment);
    }
}
