package io.weir.plugin.datagen;

import io.weir.api.Schema;
import io.weir.api.plugin.PluginConfig;
import io.weir.api.plugin.PluginSetting;
import io.weir.api.plugin.SourceFactory;
import io.weir.api.source.SourceReader;
import org.osgi.service.component.annotations.Component;

import java.util.List;

/**
 * The {@code datagen} source: synthetic rows {@code (key, seq, ts, payload)} at a configurable rate,
 * bounded when {@code limit} is set. See {@link DatagenSettings} and {@link DatagenReader}.
 * Stateless and thread-safe.
 */
@Component(service = SourceFactory.class, property = "weir.plugin.type=" + DatagenSourceFactory.TYPE)
public final class DatagenSourceFactory implements SourceFactory {
    /** The type name in job files. */
    public static final String TYPE = "datagen";
    /** The settings {@link #settings()} describes. */
    static final List<PluginSetting> SETTINGS = List.of(
            PluginSetting.optional("rate", "double", "0", "records per second over all subtasks; 0 = unlimited"),
            PluginSetting.optional("record-size", "long", "100", "bytes of the payload field per record"),
            PluginSetting.optional("keys", "long", "16", "number of distinct values of the key field (>= 1)"),
            PluginSetting.optional("limit", "long", null, "stop after this many records (bounded); absent: runs until cancelled"));

    /** Public no-arg constructor for DS and {@link java.util.ServiceLoader}. */
    public DatagenSourceFactory() {
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
