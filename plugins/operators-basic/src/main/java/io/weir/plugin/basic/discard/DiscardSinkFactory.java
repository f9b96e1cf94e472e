package io.weir.plugin.basic.discard;

import io.weir.api.Schema;
import io.weir.api.plugin.PluginConfig;
import io.weir.api.plugin.SinkFactory;
import io.weir.api.sink.TwoPhaseCommittingSink;
import org.osgi.service.component.annotations.Component;

/**
 * The {@code discard} sink: accepts any input schema and drops every row (see {@link DiscardSink}).
 * It takes no config. Stateless and thread-safe.
 */
@Component(service = SinkFactory.class, property = "weir.plugin.type=" + DiscardSinkFactory.TYPE)
public final class DiscardSinkFactory implements SinkFactory {
    /** The type name in job files. */
    public static final String TYPE = "discard";

    /** Public no-arg constructor for DS and {@link java.util.ServiceLoader}. */
    public DiscardSinkFactory() {
    }

    @Override
    public String type() {
        return TYPE;
    }

    /** @throws IllegalArgumentException naming the first config key, since {@code discard} takes none */
    @Override
    public void validate(PluginConfig config, Schema input) {
        if (!config.keys().isEmpty()) {
            String key = config.keys().stream().sorted().findFirst().orElseThrow();
            throw config.error(key, "is not a setting of the discard sink, which takes no config");
        }
    }

    /** @return a fresh {@link DiscardSink} */
    @Override
    public TwoPhaseCommittingSink<DiscardTransaction> create(PluginConfig config, Schema input) {
        validate(config, input);
        return new DiscardSink();
    }
}
