package io.weir.benchmarks.savepoint;

import io.weir.api.Row;
import io.weir.api.Schema;
import io.weir.api.operator.OperatorContext;
import io.weir.api.operator.Output;
import io.weir.api.operator.StreamOperator;
import io.weir.api.plugin.OperatorFactory;
import io.weir.api.plugin.PluginConfig;

/**
 * The benchmark-only {@code key-count-tap} operator: forwards every datagen row unchanged and counts it in
 * {@link GeneratedCounts} (the ground truth), snapshotting the counts at each barrier. Must run with the
 * source's parallelism on a forward edge, so that its subtask {@code i} sees exactly source subtask
 * {@code i}'s rows. Registered by hand into the engine's plugin registry. Thread-safe.
 */
public final class KeyCountTapFactory implements OperatorFactory {
    /** The type name in job files. */
    public static final String TYPE = "key-count-tap";

    private final GeneratedCounts counts;

    /** @param counts where every tap subtask counts its rows */
    public KeyCountTapFactory(GeneratedCounts counts) {
        this.counts = counts;
    }

    @Override
    public String type() {
        return TYPE;
    }

    /**
     * @return {@code input} unchanged
     * @throws IllegalArgumentException if the input has no {@code key} or {@code seq} field
     */
    @Override
    public Schema outputSchema(PluginConfig config, Schema input) {
        input.require("key");
        input.require("seq");
        return input;
    }

    @Override
    public StreamOperator create(PluginConfig config, Schema input) {
        return new Tap(counts, input.require("key"), input.require("seq"));
    }

    /** One subtask; task thread only. */
    private static final class Tap implements StreamOperator {
        private final GeneratedCounts counts;
        private final int keyField;
        private final int seqField;
        private int subtask = -1;

        Tap(GeneratedCounts counts, int keyField, int seqField) {
            this.counts = counts;
            this.keyField = keyField;
            this.seqField = seqField;
        }

        /** @throws IllegalStateException if the parallelism is not the source's */
        @Override
        public void initializeState(OperatorContext context) {
            if (context.parallelism() != counts.subtasks()) {
                throw new IllegalStateException(TYPE + " " + context.operatorId() + " must have the source's parallelism "
                        + counts.subtasks() + ", has " + context.parallelism());
            }
            subtask = context.subtaskIndex();
        }

        @Override
        public void processElement(Row row, Output out) {
            counts.add(subtask, row.getLong(keyField), row.getLong(seqField));
            out.collect(row);
        }

        @Override
        public void snapshotState(long checkpointId) {
            counts.snapshot(checkpointId, subtask);
        }
    }
}
