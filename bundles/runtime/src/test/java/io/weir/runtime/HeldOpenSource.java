package io.weir.runtime;

import io.weir.api.FieldType;
import io.weir.api.Row;
import io.weir.api.Schema;
import io.weir.api.operator.OperatorContext;
import io.weir.api.operator.Output;
import io.weir.api.plugin.PluginConfig;
import io.weir.api.plugin.SourceFactory;
import io.weir.api.source.PollStatus;
import io.weir.api.source.SourceReader;

import java.util.List;

/**
 * Test source {@value #TYPE}: subtask 0 emits the rows of its {@code dates} setting (field {@code date}, ISO-8601,
 * key field {@code k} = "a"), then stays open emitting nothing; every other subtask emits nothing and stays open —
 * a source subtask without data, as a Kafka subtask without partitions. Runs until cancelled. No state.
 */
public final class HeldOpenSource implements SourceFactory {
    static final String TYPE = "test-held-open";
    static final Schema SCHEMA = Schema.builder().field("k", FieldType.STRING).field("date", FieldType.STRING).build();

    @Override
    public String type() {
        return TYPE;
    }

    @Override
    public Schema outputSchema(PluginConfig config) {
        config.getStringList("dates", List.of());
        return SCHEMA;
    }

    @Override
    public boolean isBounded(PluginConfig config) {
        return false;
    }

    @Override
    public SourceReader create(PluginConfig config, Schema output) {
        List<String> dates = config.getStringList("dates", List.of());
        return new SourceReader() {
            private int next;
            private boolean emits;

            @Override
            public void initializeState(OperatorContext context) {
                emits = context.subtaskIndex() == 0;
            }

            @Override
            public PollStatus pollNext(Output out) {
                if (emits && next < dates.size()) {
                    out.collect(new Row(SCHEMA, "a", dates.get(next++)));
                    return PollStatus.MORE_AVAILABLE;
                }
                return PollStatus.NOTHING_AVAILABLE;
            }

            @Override
            public long idleWaitNanos() {
                return 5_000_000L;
            }

            @Override
            public void snapshotState(long checkpointId) {
            }
        };
    }
}
