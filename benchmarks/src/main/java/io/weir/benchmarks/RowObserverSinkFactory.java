package io.weir.benchmarks;

import io.weir.api.Row;
import io.weir.api.Schema;
import io.weir.api.plugin.PluginConfig;
import io.weir.api.plugin.SinkFactory;
import io.weir.api.sink.TwoPhaseCommittingSink;

import java.util.function.Supplier;

/**
 * A benchmark-only sink type that drops rows after calling a harness callback once per row written (rows are
 * observed when written, not when committed). Registered by hand into the engine's plugin registry, never through
 * ServiceLoader or OSGi. Thread-safe as far as the callback supplier is: the engine calls it once per sink subtask it
 * creates, and each callback it returns is called from that subtask's task thread only.
 */
public class RowObserverSinkFactory implements SinkFactory {
    private final String type;
    private final Supplier<? extends Runnable> onRowPerSink;

    /**
     * @param type the type name in job files
     * @param onRowPerSink called once per sink subtask created, for the callback that subtask calls once per row (from
     *        its task thread); an exception either throws fails the subtask's task
     */
    public RowObserverSinkFactory(String type, Supplier<? extends Runnable> onRowPerSink) {
        this.type = type;
        this.onRowPerSink = onRowPerSink;
    }

    @Override
    public final String type() {
        return type;
    }

    /** Accepts any schema and ignores the config. */
    @Override
    public final void validate(PluginConfig config, Schema input) {
    }

    /** @return a sink whose transactions are sequence numbers (handles serialized as 8-byte longs) */
    @Override
    public final TwoPhaseCommittingSink<Long> create(PluginConfig config, Schema input) {
        return new ObservingSink(onRowPerSink.get());
    }

    /** Calls the callback per row; its transactions are no-ops. Task thread only. */
    private static final class ObservingSink extends NoTransactionSink {
        private final Runnable onRow;

        ObservingSink(Runnable onRow) {
            this.onRow = onRow;
        }

        @Override
        public void write(Long transaction, Row row) {
            onRow.run();
        }

        /** @return false: the callback does not see the row */
        @Override
        public boolean retainsRows() {
            return false;
        }
    }
}
