package io.weir.plugin.file;

import io.weir.api.FieldType;
import io.weir.api.Schema;
import io.weir.api.plugin.PluginConfig;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Objects;

/**
 * The validated configuration of a {@code file} source.
 *
 * @param path the JSON file (absolute, normalized), which existed and was readable when validated
 * @param schema the fields to read, in the order the config's {@code schema} object lists them
 * @param format the expected layout ({@code format}, default {@link JsonFormat#AUTO})
 * @param limit how many records of the file to read at most, over all subtasks ({@code limit};
 *              {@link Long#MAX_VALUE} when absent)
 * @param releaseFile the {@code release-file} ({@link ReleaseGate}; absolute, normalized), or null when absent
 */
public record FileSourceSettings(Path path, Schema schema, JsonFormat format, long limit, Path releaseFile) {
    /** @throws IllegalArgumentException if the schema is empty or the limit negative */
    public FileSourceSettings {
        Objects.requireNonNull(path, "path");
        Objects.requireNonNull(schema, "schema");
        Objects.requireNonNull(format, "format");
        if (schema.size() == 0) {
            throw new IllegalArgumentException("schema must have at least one field");
        }
        if (limit < 0) {
            throw new IllegalArgumentException("limit must be >= 0, got " + limit);
        }
    }

    /**
     * Reads and validates a {@code file} source config: {@code path} (required, relative to the job
     * file), {@code schema} (required object of field name to type name), {@code format}
     * ({@code auto}|{@code array}|{@code lines}), {@code limit} (records, >= 0), {@code release-file} (optional path,
     * relative to the job file; it need not exist yet).
     *
     * @throws IllegalArgumentException naming the config field (e.g.
     *         {@code operators[0].config.path file /x/y.json does not exist})
     */
    public static FileSourceSettings from(PluginConfig config) {
        // every setting is read before the first can fail, so that an unknown key is reported with all settings
        config.has("format");
        config.has("limit");
        Path releaseFile = config.has("release-file") ? config.requirePath("release-file") : null;
        Map<String, Object> fields = config.getObject("schema");
        Path path = config.requirePath("path");
        if (!Files.exists(path)) {
            throw config.error("path", "file " + path + " does not exist");
        }
        if (!Files.isRegularFile(path) || !Files.isReadable(path)) {
            throw config.error("path", "file " + path + " is not a readable regular file");
        }
        if (fields == null || fields.isEmpty()) {
            throw config.error("schema", "is required: an object of field name to type, e.g. {\"delay\": \"long\"}");
        }
        Schema.Builder schema = Schema.builder();
        for (Map.Entry<String, Object> e : fields.entrySet()) {
            if (!(e.getValue() instanceof String typeName)) {
                throw config.error("schema." + e.getKey(), "must be a type name string, got " + e.getValue());
            }
            try {
                schema.field(e.getKey(), FieldType.parse(typeName));
            } catch (IllegalArgumentException ex) {
                throw config.error("schema." + e.getKey(), ex.getMessage());
            }
        }
        JsonFormat format;
        try {
            format = JsonFormat.parse(config.getString("format", "auto"));
        } catch (IllegalArgumentException ex) {
            throw config.error("format", ex.getMessage());
        }
        long limit = config.getLong("limit", Long.MAX_VALUE);
        if (limit < 0) {
            throw config.error("limit", "must be >= 0, got " + limit);
        }
        return new FileSourceSettings(path, schema.build(), format, limit, releaseFile);
    }
}
