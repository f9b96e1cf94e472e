package io.weir.benchmarks;

import java.util.concurrent.atomic.AtomicLong;

/**
 * The benchmark-only {@code count-sink}: drops rows after adding one per row to a counter owned by
 * the harness, which samples it to compute records/s. Rows are counted when written, not when
 * committed (throughput of the pipeline, not of commits). Thread-safe (the counter is atomic).
 */
public final class CountingSinkFactory extends RowObserverSinkFactory {
    /** The type name in job files. */
    public static final String TYPE = "count-sink";

    /** @param rows incremented once per row written by any subtask of any sink this factory creates */
    public CountingSinkFactory(AtomicLong rows) {
        super(TYPE, rows::incrementAndGet);
    }
}
