package io.weir.benchmarks;

/**
 * The benchmark-only {@code count-sink}: drops rows after adding one per row to its subtask's counter in a
 * {@link RowCounter} owned by the harness, which samples the sum to compute records/s. Rows are counted when written,
 * not when committed (throughput of the pipeline, not of commits). Thread-safe. One counter per subtask, not one
 * shared {@code LongAdder}: see {@link RowCounter} for what sharing cost (the Flink reference harness counts the same
 * way once patched, benchmarks/peers/README.md).
 */
public final class CountingSinkFactory extends RowObserverSinkFactory {
    /** The type name in job files. */
    public static final String TYPE = "count-sink";

    /** @param rows gets a new counter per sink subtask this factory creates, incremented once per row it writes */
    public CountingSinkFactory(RowCounter rows) {
        super(TYPE, rows::newWriter);
    }
}
