package io.weir.plugin.basic.aggregate;

import io.weir.api.Schema;
import io.weir.api.operator.StreamOperator;
import io.weir.api.plugin.OperatorFactory;
import io.weir.api.plugin.PluginConfig;
import io.weir.api.plugin.PluginSetting;
import io.weir.plugin.basic.RecordThrottle;
import org.osgi.service.component.annotations.Component;

import java.util.List;

/**
 * The {@code keyed-aggregate} operator: config {@code key} (field name or list), {@code aggregates}
 * (list of {@code {"fn": count|sum|avg|min|max, "field": ..., "as": ...}}), optional
 * {@code sleep-ms-per-record}. Its input edge must be partitioned by hash of the same key fields.
 * See {@link AggregatePlan} for the output schema and {@link KeyedAggregateOperator} for behaviour; version 1.1
 * (the example bundle) adds {@code <as>_stddev} columns ({@link StddevColumns}).
 * Stateless and thread-safe.
 */
@Component(service = OperatorFactory.class, property = "weir.plugin.type=" + KeyedAggregateFactory.TYPE)
public final class KeyedAggregateFactory implements OperatorFactory {
    /** The type name in job files. */
    public static final String TYPE = "keyed-aggregate";
    /** The settings {@link #settings()} describes. */
    static final List<PluginSetting> SETTINGS = List.of(
            PluginSetting.required("key", "string or list of strings", "the field(s) to group by; the input edge must hash by the same fields"),
            PluginSetting.required("aggregates", "list of objects", "each {fn: count|sum|avg|min|max, field, as}; one updated row per input"),
            PluginSetting.optional(RecordThrottle.KEY, "long", "0", "pause per record in ms, to simulate an expensive operator (benchmarks)"));

    /** Public no-arg constructor for DS and {@link java.util.ServiceLoader}. */
    public KeyedAggregateFactory() {
    }

    @Override
    public String type() {
        return TYPE;
    }

    /** @return the settings of this type's {@code config}, as docs/job-format.md describes them */
    @Override
    public List<PluginSetting> settings() {
        return SETTINGS;
    }

    /** @throws IllegalArgumentException naming the bad config field (see {@link AggregatePlan#from}) */
    @Override
    public Schema outputSchema(PluginConfig config, Schema input) {
        RecordThrottle.from(config);
        AggregatePlan plan = AggregatePlan.from(config, input);
        StddevColumns stddev = StddevColumns.enabled() ? StddevColumns.of(plan, input) : null;
        return stddev == null ? plan.outputSchema() : stddev.outputSchema();
    }

    /** @return true: state is per key */
    @Override
    public boolean requiresKeyedInput() {
        return true;
    }

    /** @return the {@code key} setting (a field name or a list of them), which the input edge's hash keys must match */
    @Override
    public List<String> keyFields(PluginConfig config) {
        return AggregatePlan.keyFields(config);
    }

    @Override
    public StreamOperator create(PluginConfig config, Schema input) {
        AggregatePlan plan = AggregatePlan.from(config, input);
        return new KeyedAggregateOperator(plan, RecordThrottle.from(config),
                StddevColumns.enabled() ? StddevColumns.of(plan, input) : null);
    }
}
