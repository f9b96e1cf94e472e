package io.weir.plugin.basic.filter;

import io.weir.api.Schema;
import io.weir.api.operator.StreamOperator;
import io.weir.api.plugin.OperatorFactory;
import io.weir.api.plugin.PluginConfig;
import io.weir.plugin.basic.RecordThrottle;
import org.osgi.service.component.annotations.Component;

/**
 * The {@code filter} operator: config {@code field}, {@code op} ({@code == != < <= > >=}),
 * {@code value} (number, string or boolean), optional {@code sleep-ms-per-record}. Output schema =
 * input schema. See {@link FilterCondition} for comparison rules. Stateless and thread-safe.
 */
@Component(service = OperatorFactory.class, property = "weir.plugin.type=" + FilterOperatorFactory.TYPE)
public final class FilterOperatorFactory implements OperatorFactory {
    /** The type name in job files. */
    public static final String TYPE = "filter";

    /** Public no-arg constructor for DS and {@link java.util.ServiceLoader}. */
    public FilterOperatorFactory() {
    }

    @Override
    public String type() {
        return TYPE;
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
