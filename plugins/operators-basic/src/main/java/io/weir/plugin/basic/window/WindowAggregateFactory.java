package io.weir.plugin.basic.window;

import io.weir.api.Schema;
import io.weir.api.operator.StreamOperator;
import io.weir.api.plugin.OperatorFactory;
import io.weir.api.plugin.PluginConfig;
import io.weir.api.plugin.PluginSetting;
import io.weir.plugin.basic.aggregate.AggregatePlan;
import org.osgi.service.component.annotations.Component;

import java.util.List;

/**
 * The {@code window-aggregate} operator: the aggregates of {@code keyed-aggregate} per key and event-time window
 * (tumbling, sliding or session), one row per window and key when the watermark passes the window's end.
 * See {@link WindowSpec} for the settings and {@link WindowAggregateOperator} for behaviour. Stateless and
 * thread-safe.
 */
@Component(service = OperatorFactory.class, property = "weir.plugin.type=" + WindowAggregateFactory.TYPE)
public final class WindowAggregateFactory implements OperatorFactory {
    /** The type name in job files. */
    public static final String TYPE = "window-aggregate";
    /** The settings {@link #settings()} describes. */
    static final List<PluginSetting> SETTINGS = List.of(
            PluginSetting.required("key", "string or list of strings", "the field(s) to group by; the input edge must hash by the same fields"),
            PluginSetting.required("aggregates", "list of objects", "each {fn: count|sum|avg|min|max, field, as}, as keyed-aggregate"),
            PluginSetting.required("timestamp-field", "string", "the field holding each row's event time (epoch ms, or a string: ISO-8601 or timestamp-format)"),
            PluginSetting.optional("timestamp-format", "string", "ISO-8601", "date-time pattern of a string timestamp-field, read as UTC (e.g. yyyy/MM/dd HH:mm)"),
            PluginSetting.required("window", "string", "tumbling, sliding or session"),
            PluginSetting.optional("size", "duration", "none", "window length (tumbling, sliding), e.g. \"1 h\""),
            PluginSetting.optional("slide", "duration", "none", "distance between window starts (sliding), at most size"),
            PluginSetting.optional("gap", "duration", "none", "inactivity gap closing a session (session)"),
            PluginSetting.optional("allowed-lateness", "duration", "0 ms", "how long a fired window still takes late rows, each emitting an updated row"),
            PluginSetting.optional("late-output", "string", "none", "side output for rows too late for every window (consumed with {\"from\": id, \"output\": name}); else dropped and counted"));

    /** Public no-arg constructor for DS and {@link java.util.ServiceLoader}. */
    public WindowAggregateFactory() {
    }

    @Override
    public String type() {
        return TYPE;
    }

    @Override
    public List<PluginSetting> settings() {
        return SETTINGS;
    }

    /** @throws IllegalArgumentException naming the bad config field */
    @Override
    public Schema outputSchema(PluginConfig config, Schema input) {
        // every setting is read before the first can fail, so that an unknown key is reported with all settings
        config.raw("key");
        config.raw("aggregates");
        WindowSpec.from(config, input);
        AggregatePlan plan = AggregatePlan.from(config, input);
        for (String reserved : List.of("window_start", "window_end")) {
            if (plan.outputSchema().indexOf(reserved) >= 0) {
                throw config.error("aggregates", "must not produce a field named '" + reserved + "': the window adds it");
            }
        }
        return WindowAggregateOperator.outputSchema(plan);
    }

    /** @return true: windows and timers are per key */
    @Override
    public boolean requiresKeyedInput() {
        return true;
    }

    @Override
    public List<String> keyFields(PluginConfig config) {
        return AggregatePlan.keyFields(config);
    }

    /** @return the {@code late-output} setting, if given */
    @Override
    public List<String> sideOutputs(PluginConfig config) {
        String late = config.getString("late-output", null);
        return late == null ? List.of() : List.of(late);
    }

    @Override
    public StreamOperator create(PluginConfig config, Schema input) {
        return new WindowAggregateOperator(AggregatePlan.from(config, input), WindowSpec.from(config, input));
    }
}
