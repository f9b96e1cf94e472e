package io.weir.benchmarks.recovery;

import io.weir.benchmarks.RowObserverSinkFactory;

/**
 * The benchmark-only {@code failure-probe} sink of {@link RecoveryBenchmark}: drops rows, fails its task (throws
 * {@link IllegalStateException} "benchmark-injected failure") when the harness armed the {@link RecoveryClock},
 * and tells the clock about every row, so it stamps the first one after a failure. Thread-safe (all shared state
 * is in the clock).
 */
public final class FailureProbeSinkFactory extends RowObserverSinkFactory {
    /** The type name in job files. */
    public static final String TYPE = "failure-probe";

    /** @param clock armed by the harness; told about every row by every sink this factory creates */
    public FailureProbeSinkFactory(RecoveryClock clock) {
        super(TYPE, () -> () -> {
            if (clock.onRow(System.nanoTime())) {
                throw new IllegalStateException("benchmark-injected failure");
            }
        });
    }
}
