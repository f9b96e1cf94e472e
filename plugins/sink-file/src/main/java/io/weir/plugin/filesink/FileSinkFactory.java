package io.weir.plugin.filesink;

import io.weir.api.Schema;
import io.weir.api.plugin.PluginConfig;
import io.weir.api.plugin.PluginSetting;
import io.weir.api.plugin.SinkFactory;
import io.weir.api.sink.TwoPhaseCommittingSink;
import org.osgi.service.component.annotations.Component;

import java.util.List;

/**
 * The {@code file-2pc} sink: exactly-once JSON-lines files in directory {@code path}, named
 * {@code <prefix>-<subtask>-<uuid>.jsonl}. See {@link FileSinkSettings} and {@link FileSink}.
 * Stateless and thread-safe.
 */
@Component(service = SinkFactory.class, property = "weir.plugin.type=" + FileSinkFactory.TYPE)
public final class FileSinkFactory implements SinkFactory {
    /** The type name in job files. */
    public static final String TYPE = "file-2pc";
    /** The settings {@link #settings()} describes. */
    static final List<PluginSetting> SETTINGS = List.of(
            PluginSetting.required("path", "string", "the output directory, relative to the job file; created when the job starts"),
            PluginSetting.optional("prefix", "string", "part", "file name prefix of committed files (<prefix>-*.jsonl)"));

    /** Public no-arg constructor for DS and {@link java.util.ServiceLoader}. */
    public FileSinkFactory() {
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

    /** @throws IllegalArgumentException naming the bad config field (see {@link FileSinkSettings#from}) */
    @Override
    public void validate(PluginConfig config, Schema input) {
        FileSinkSettings.from(config);
    }

    @Override
    public TwoPhaseCommittingSink<FileTransaction> create(PluginConfig config, Schema input) {
        return new FileSink(FileSinkSettings.from(config), input);
    }
}
