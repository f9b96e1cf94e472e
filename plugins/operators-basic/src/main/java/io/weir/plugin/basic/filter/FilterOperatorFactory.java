package io.weir.plugin.basic.filter;

import io.weir.api.Schema;
import io.weir.api.operator.StreamOperator;
import io.weir.api.plugin.OperatorFactory;
import io.weir.api.plugin.PluginConfig;
import io.weir.api.plugin.PluginSetting;
import io.weir.plugin.basic.RecordThrottle;
import org.osgi.service.component.annotations.Component;

import java.util.List;

/**
 * The {@code filter} operator: config {@code field}, {@code op} ({@code == != < <= > >=}),
 * {@code value} (number, string or boolean), optional {@code sleep-ms-per-record}. Output schema =
 * input schema. See {@link FilterCondition} for comparison rules. Stateless and thread-safe.
 */
@Component(service = OperatorFactory.class, property = "weir.plugin.type=" + FilterOperatorFactory.TYPE)
public final class FilterOperatorFactory implements OperatorFactory {
    /** The type name in job files. */
    public static final String TYPE = "filter";
    /** The settings {@link #settings()} describes. */
    static final List<PluginSetting> SETTINGS = List.of(
            PluginSetting.required("field", "string", "the input field to compare"),
            PluginSetting.required("op", "string", "the comparison: ==, !=, <, <=, >, >="),
            PluginSetting.required("value", "number, string or boolean", "the value the field is compared with; of the field's type"),
            PluginSetting.optional(RecordThrottle.KEY, "long", "0", "pause per record in ms, to simulate an expensive operator (benchmarks)"));

    /** Public no-arg constructor for DS and {@link java.util.ServiceLoader}. */
    public FilterOperatorFactory() {
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

    /** @throws IllegalArgumentException naming the bad config field */
    @Override
    public Schema outputSchema(PluginConfig config, Schema input) {
        RecordThrottle.from(config);
        FilterCondition.from(config, input);
        return input;
    }

    @Override
    public StreamOperator create(PluginConfig config, Schema input) {
        return new FilterOperator(FilterCondition.from(config, input), RecordThrottle.from(config));
    }
}
