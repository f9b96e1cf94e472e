package io.weir.plugin.datagen;

import io.weir.api.Schema;
import io.weir.api.plugin.PluginConfig;
import io.weir.api.plugin.SourceFactory;
import io.weir.api.source.SourceReader;
import org.osgi.service.component.annotations.Component;

/**
 * The {@code datagen} source: synthetic rows {@code (key, seq, ts, payload)} at a configurable rate,
 * bounded when {@code limit} is set. See {@link DatagenSettings} and {@link DatagenReader}.
 * Stateless and thread-safe.
 */
@Component(service = SourceFactory.class, property = "weir.plugin.type=" + DatagenSourceFactory.TYPE)
public final class DatagenSourceFactory implements SourceFactory {
    /** The type name in job files. */
    public static final String TYPE = "datagen";

    /** Public no-arg constructor for DS and {@link java.util.ServiceLoader}. */
    public DatagenSourceFactory() {
    }

    @Override
    public String type() {
        return TYPE;
    }

    /**
     * @return {@link DatagenSettings#SCHEMA}
     * @throws IllegalArgumentException see {@link DatagenSettings#from}
     */
    @Override
    public Schema outputSchema(PluginConfig config) {
        DatagenSettings.from(config);
        return DatagenSettings.SCHEMA;
    }

    /** @return whether {@code limit} is set */
    @Override
    public boolean isBounded(PluginConfig config) {
        return DatagenSettings.from(config).limit().isPresent();
    }

    /** @throws IllegalArgumentException if the config is invalid or {@code output} is not {@link DatagenSettings#SCHEMA} */
    @Override
    public SourceReader create(PluginConfig config, Schema output) {
        DatagenSettings settings = DatagenSettings.from(config);
        if (!DatagenSettings.SCHEMA.equals(output)) {
            throw new IllegalArgumentException(config.path() + ": datagen emits " + DatagenSettings.SCHEMA
                    + " but the job graph expects " + output);
        }
        return new DatagenReader(settings);
    }
}
