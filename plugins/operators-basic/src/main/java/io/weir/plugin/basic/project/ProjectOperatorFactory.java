package io.weir.plugin.basic.project;

import io.weir.api.Row;
import io.weir.api.Schema;
import io.weir.api.operator.Output;
import io.weir.api.operator.StreamOperator;
import io.weir.api.plugin.OperatorFactory;
import io.weir.api.plugin.PluginConfig;
import io.weir.api.plugin.PluginSetting;
import io.weir.plugin.basic.RecordThrottle;
import org.osgi.service.component.annotations.Component;

import java.util.HashSet;
import java.util.List;

/**
 * The {@code project} operator: config {@code fields} (non-empty list of input field names, no
 * repeats), optional {@code sleep-ms-per-record}; the output has just those fields, in that order.
 * Stateless and thread-safe.
 */
@Component(service = OperatorFactory.class, property = "weir.plugin.type=" + ProjectOperatorFactory.TYPE)
public final class ProjectOperatorFactory implements OperatorFactory {
    /** The type name in job files. */
    public static final String TYPE = "project";
    /** The settings {@link #settings()} describes. */
    static final List<PluginSetting> SETTINGS = List.of(
            PluginSetting.required("fields", "list of strings", "the input fields to keep, in output order, each once"),
            PluginSetting.optional(RecordThrottle.KEY, "long", "0", "pause per record in ms, to simulate an expensive operator (benchmarks)"));

    /** Public no-arg constructor for DS and {@link java.util.ServiceLoader}. */
    public ProjectOperatorFactory() {
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

    /** @throws IllegalArgumentException naming {@code fields} if it is missing, empty, repeats or names an unknown field */
    @Override
    public Schema outputSchema(PluginConfig config, Schema input) {
        RecordThrottle.from(config);
        List<String> fields = config.getStringList("fields", List.of());
        if (fields.isEmpty()) {
            throw config.error("fields", "is required: a non-empty list of field names");
        }
        if (new HashSet<>(fields).size() != fields.size()) {
            throw config.error("fields", "must not repeat a field, got " + fields);
        }
        for (int i = 0; i < fields.size(); i++) {
            if (input.indexOf(fields.get(i)) < 0) {
                throw config.error("fields[" + i + "]", "names no input field: '" + fields.get(i)
                        + "'; available fields: " + input.names());
            }
        }
        return input.project(fields);
    }

    @Override
    public StreamOperator create(PluginConfig config, Schema input) {
        Schema output = outputSchema(config, input);
        int[] positions = new int[output.size()];
        for (int i = 0; i < positions.length; i++) {
            positions[i] = input.require(output.field(i).name());
        }
        return new ProjectOperator(positions, output, RecordThrottle.from(config));
    }

    /** Keeps the configured fields of each row. Stateless; task thread only. */
    static final class ProjectOperator implements StreamOperator {
        private final int[] positions;
        private final Schema output;
        private final RecordThrottle throttle;

        ProjectOperator(int[] positions, Schema output, RecordThrottle throttle) {
            this.positions = positions;
            this.output = output;
            this.throttle = throttle;
        }

        @Override
        public void processElement(Row row, Output out) {
            throttle.pause();
            out.collect(row.project(positions, output));
        }
    }
}
