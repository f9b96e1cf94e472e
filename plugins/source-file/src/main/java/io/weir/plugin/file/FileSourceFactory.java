package io.weir.plugin.file;

import io.weir.api.Schema;
import io.weir.api.plugin.PluginConfig;
import io.weir.api.plugin.PluginSetting;
import io.weir.api.plugin.SourceFactory;
import io.weir.api.source.SourceReader;
import org.osgi.service.component.annotations.Component;

import java.util.List;

/**
 * The {@code file} source: JSON records from one file (a JSON array or JSON lines), split across
 * subtasks by record index, replayable from checkpoints. See {@link FileSourceSettings} for the
 * config and {@link FileSourceReader} for the behaviour. Stateless and thread-safe.
 */
@Component(service = SourceFactory.class, property = "weir.plugin.type=" + FileSourceFactory.TYPE)
public final class FileSourceFactory implements SourceFactory {
    /** The type name in job files. */
    public static final String TYPE = "file";
    /** The settings {@link #settings()} describes. */
    static final List<PluginSetting> SETTINGS = List.of(
            PluginSetting.required("path", "string", "the UTF-8 JSON file to read (not compressed), relative to the job file"),
            PluginSetting.required("schema", "object", "field name to type (long, int, double, boolean, string, bytes, timestamp)"),
            PluginSetting.optional("format", "string", "auto", "array (one JSON array) or lines (one object per line); auto detects it"),
            PluginSetting.optional("limit", "long", null, "read at most this many records, over all subtasks (>= 0); absent: the whole file"),
            PluginSetting.optional("release-file", "string", null, "a file holding the number of records (over all subtasks) the source may read"
                    + " so far: it holds there, idle, until the number grows or the file is deleted; relative to the job file"));

    /** Public no-arg constructor for DS and {@link java.util.ServiceLoader}. */
    public FileSourceFactory() {
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

    /** @throws IllegalArgumentException see {@link FileSourceSettings#from} */
    @Override
    public Schema outputSchema(PluginConfig config) {
        return FileSourceSettings.from(config).schema();
    }

    /** @return true: a file ends */
    @Override
    public boolean isBounded(PluginConfig config) {
        return true;
    }

    /**
     * @throws IllegalArgumentException if the config is invalid or {@code output} differs from the
     *         schema the config declares
     */
    @Override
    public SourceReader create(PluginConfig config, Schema output) {
        FileSourceSettings settings = FileSourceSettings.from(config);
        if (!settings.schema().equals(output)) {
            throw config.error("schema", "declares " + settings.schema() + " but the job graph expects " + output);
        }
        return new FileSourceReader(settings);
    }
}
