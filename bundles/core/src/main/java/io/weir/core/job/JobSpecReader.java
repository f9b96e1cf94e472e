package io.weir.core.job;

import io.weir.api.plugin.OperatorFactory;
import io.weir.api.plugin.PluginConfig;
import io.weir.api.plugin.SinkFactory;
import io.weir.api.plugin.SourceFactory;
import jakarta.json.JsonArray;
import jakarta.json.JsonConfig;
import jakarta.json.JsonNumber;
import jakarta.json.JsonObject;
import jakarta.json.JsonReader;
import jakarta.json.JsonReaderFactory;
import jakarta.json.JsonString;
import jakarta.json.JsonValue;
import jakarta.json.spi.JsonProvider;
import jakarta.json.stream.JsonParser;
import jakarta.json.stream.JsonParsingException;

import java.io.StringReader;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * The reading stage of {@link JobSpecParser}: the job file's text into its raw parts — the job object (strict
 * JSON: a field given twice, text after the object and unknown fields are errors), its name, its {@code config}
 * object as plain Java values, and its operators as {@link RawOperator}s with their inputs. Option values are
 * not interpreted here ({@link JobOptionsParser}) and the graph is not checked ({@link JobGraphBuilder}).
 *
 * <p>Thread-safe.
 */
final class JobSpecReader {
    /** The fields of a job object, of an operator and of an input object (docs/job-format.md). */
    private static final List<String> TOP_LEVEL_FIELDS = List.of("name", "config", "operators");
    private static final List<String> OPERATOR_FIELDS = List.of("id", "type", "version", "parallelism", "inputs", "config");
    private static final List<String> INPUT_FIELDS = List.of("from", "output", "partitioning", "keys");
    /** A job name names a directory: letters, digits, '-', '_', '.', not starting with '.'. */
    private static final Pattern PLAIN_NAME = Pattern.compile("[\\p{L}\\p{N}_-][\\p{L}\\p{N}_.-]*");

    private final JsonProvider json;
    private final JsonReaderFactory strictReaders;

    /** @param json the JSON-P provider */
    JobSpecReader(JsonProvider json) {
        this.json = json;
        // a field given twice is a mistake to report, not a value to pick silently
        this.strictReaders = json.createReaderFactory(Map.of(JsonConfig.KEY_STRATEGY, JsonConfig.KeyStrategy.NONE));
    }

    /**
     * A job file read up to its operators, which are read once the options are known ({@link #readOperators}).
     *
     * @param name the job's name, a plain file name
     * @param config the {@code config} object's entries as String, Long, Double, Boolean, List or Map (JSON nulls left out)
     * @param root the job object
     */
    record RawJob(String name, Map<String, Object> config, JsonObject root) {
    }

    /** Resolves the plugin an operator runs with, while it is read (so its errors come in file order). */
    @FunctionalInterface
    interface Binder {
        /**
         * @param o the operator object
         * @param op the operator read so far (path, id, type, parallelism, config)
         * @return the plugin the operator is bound to
         * @throws InvalidJobException naming {@code op.path}
         */
        io.weir.core.plugin.PluginBinding bind(JsonObject o, RawOperator op) throws InvalidJobException;
    }

    /**
     * Reads the job object, its name and its {@code config} object.
     *
     * @param text the job file's content (a leading UTF-8 byte order mark is ignored)
     * @throws InvalidJobException if the text is empty, not JSON (with line and column), not one object, has an
     *         unknown top-level field, or the name is missing or not a plain name, or config is not an object
     */
    RawJob read(String text) throws InvalidJobException {
        if (text.startsWith("\uFEFF")) {
            text = text.substring(1); // a UTF-8 byte order mark, as some editors write: not part of the JSON
        }
        if (text.isBlank()) {
            throw new InvalidJobException("job file is empty; expected a JSON object with name and operators");
        }
        JsonObject root;
        try (JsonReader reader = strictReaders.createReader(new StringReader(text))) {
            JsonValue v = reader.readValue();
            if (v.getValueType() != JsonValue.ValueType.OBJECT) {
                throw new InvalidJobException("job file must hold a JSON object, found " + kind(v));
            }
            root = v.asJsonObject();
            rejectTextAfterTheObject(text);
        } catch (JsonParsingException e) {
            throw new InvalidJobException(JsonErrors.describe(e, text), e);
        } catch (jakarta.json.JsonException e) {
            throw new InvalidJobException("job file is not valid JSON: " + e.getMessage(), e);
        }

        rejectUnknownFields(root, TOP_LEVEL_FIELDS, null, "a job has name, config and operators");
        String name = requireString(root, "name", "name");
        if (!PLAIN_NAME.matcher(name).matches()) {
            throw new InvalidJobException("name '" + name + "' must be a plain name (letters, digits, '-', '_', '.'), "
                    + "it names the checkpoint directory");
        }
        Map<String, Object> config = new HashMap<>();
        if (root.containsKey("config")) {
            JsonValue cv = root.get("config");
            if (cv.getValueType() != JsonValue.ValueType.OBJECT) {
                throw new InvalidJobException("config must be an object of option keys to values, found " + kind(cv));
            }
            for (Map.Entry<String, JsonValue> e : cv.asJsonObject().entrySet()) {
                if (e.getValue().getValueType() != JsonValue.ValueType.NULL) {
                    config.put(e.getKey(), toJava(e.getValue()));
                }
            }
        }
        return new RawJob(name, config, root);
    }

    /**
     * Reads the job's operators in file order.
     *
     * @param job the job read by {@link #read}
     * @param baseDirectory directory relative paths in plugin configs resolve against
     * @param maxParallelism the job's {@code pipeline.max-parallelism}, bounding each operator's parallelism
     * @param binder resolves each operator's plugin (after its config, before its inputs are read)
     * @return the operators by id, in file order
     * @throws InvalidJobException naming the first bad field: operators missing or empty, an operator not an object,
     *         an unknown field, a missing id or type, a bad parallelism, config or input, a source with inputs, another
     *         operator without, an id used twice; or what {@code binder} throws
     */
    Map<String, RawOperator> readOperators(RawJob job, Path baseDirectory, int maxParallelism, Binder binder)
            throws InvalidJobException {
        JsonArray ops = requireArray(job.root(), "operators", "operators");
        if (ops.isEmpty()) {
            throw new InvalidJobException("operators must list at least a source and a sink");
        }
        Map<String, RawOperator> byId = new LinkedHashMap<>();
        for (int i = 0; i < ops.size(); i++) {
            String path = "operators[" + i + "]";
            if (ops.get(i).getValueType() != JsonValue.ValueType.OBJECT) {
                throw new InvalidJobException(path + " must be an object, found " + kind(ops.get(i)));
            }
            RawOperator op = readOperator(ops.get(i).asJsonObject(), path, baseDirectory, maxParallelism, binder);
            if (byId.put(op.id, op) != null) {
                throw new InvalidJobException(path + ".id '" + op.id + "' is used twice; operator ids must be unique");
            }
        }
        return byId;
    }

    /**
     * A reader stops after the first JSON value; anything but white space after it (a second object,
     * stray text) means the file is not what its author thinks it is.
     *
     * @throws JsonParsingException at the first token after the job object
     */
    private void rejectTextAfterTheObject(String text) {
        try (JsonParser parser = json.createParser(new StringReader(text))) {
            parser.next();
            parser.skipObject();
            parser.hasNext();
        }
    }

    /**
     * @param o a job, operator or input object
     * @param allowed its fields
     * @param path its path ({@code operators[1]}), or null for the job object
     * @param fields the allowed fields in words, for the message
     * @throws InvalidJobException naming the first unknown field (sorted) and listing the allowed ones
     */
    private static void rejectUnknownFields(JsonObject o, List<String> allowed, String path, String fields)
            throws InvalidJobException {
        Optional<String> unknown = o.keySet().stream().filter(k -> !allowed.contains(k)).sorted().findFirst();
        if (unknown.isEmpty()) {
            return;
        }
        if (path == null) {
            throw new InvalidJobException("unknown top-level field '" + unknown.get() + "'; " + fields);
        }
        throw new InvalidJobException("unknown field " + path + "." + unknown.get() + "; " + fields);
    }

    private static RawOperator readOperator(JsonObject o, String path, Path baseDirectory, int maxParallelism, Binder binder)
            throws InvalidJobException {
        rejectUnknownFields(o, OPERATOR_FIELDS, path, "an operator has id, type, version, parallelism, inputs and config");
        RawOperator op = new RawOperator();
        op.path = path;
        op.id = requireString(o, "id", path + ".id");
        op.type = requireString(o, "type", path + ".type");
        op.parallelism = 1;
        if (o.containsKey("parallelism")) {
            JsonValue p = o.get("parallelism");
            if (!(p instanceof JsonNumber n) || !n.isIntegral()) {
                throw new InvalidJobException(path + ".parallelism must be a whole number, got " + p);
            }
            long value = n.longValue();
            if (value < 1 || value > maxParallelism) {
                throw new InvalidJobException(path + ".parallelism must be between 1 and " + maxParallelism
                        + " (pipeline.max-parallelism), got " + value);
            }
            op.parallelism = (int) value;
        }
        Map<String, Object> cfg = new HashMap<>();
        if (o.containsKey("config")) {
            JsonValue cv = o.get("config");
            if (cv.getValueType() != JsonValue.ValueType.OBJECT) {
                throw new InvalidJobException(path + ".config must be an object, found " + kind(cv));
            }
            for (Map.Entry<String, JsonValue> e : cv.asJsonObject().entrySet()) {
                cfg.put(e.getKey(), toJava(e.getValue()));
            }
        }
        op.config = new PluginConfig(path + ".config", cfg, baseDirectory);
        op.binding = binder.bind(o, op);
        Object factory = op.binding.factory();
        if (factory instanceof SourceFactory) {
            op.kind = VertexKind.SOURCE;
        } else if (factory instanceof OperatorFactory) {
            op.kind = VertexKind.OPERATOR;
        } else if (factory instanceof SinkFactory) {
            op.kind = VertexKind.SINK;
        } else {
            throw new InvalidJobException(path + ".type '" + op.type + "' is served by " + op.binding.origin()
                    + " with a factory that is neither a source, an operator nor a sink: " + factory.getClass().getName());
        }
        if (o.containsKey("inputs")) {
            JsonValue iv = o.get("inputs");
            if (iv.getValueType() != JsonValue.ValueType.ARRAY) {
                throw new InvalidJobException(path + ".inputs must be an array, found " + kind(iv));
            }
            JsonArray inputs = iv.asJsonArray();
            for (int i = 0; i < inputs.size(); i++) {
                String ip = path + ".inputs[" + i + "]";
                JsonValue in = inputs.get(i);
                RawInput ri = new RawInput();
                ri.path = ip;
                if (in instanceof JsonString s) {
                    ri.from = s.getString();
                    ri.partitioning = Partitioning.FORWARD;
                    ri.keys = List.of();
                } else if (in.getValueType() == JsonValue.ValueType.OBJECT) {
                    JsonObject io = in.asJsonObject();
                    rejectUnknownFields(io, INPUT_FIELDS, ip, "an input has from, output, partitioning and keys");
                    ri.from = requireString(io, "from", ip + ".from");
                    ri.output = io.containsKey("output") ? requireString(io, "output", ip + ".output") : null;
                    String part = io.containsKey("partitioning") ? requireString(io, "partitioning", ip + ".partitioning") : "forward";
                    try {
                        ri.partitioning = Partitioning.valueOf(part.toUpperCase(Locale.ROOT));
                    } catch (IllegalArgumentException e) {
                        throw new InvalidJobException(ip + ".partitioning '" + part + "' is not one of forward, hash, rebalance, broadcast");
                    }
                    ri.keys = new ArrayList<>();
                    if (io.containsKey("keys")) {
                        JsonValue kv = io.get("keys");
                        if (kv.getValueType() != JsonValue.ValueType.ARRAY || kv.asJsonArray().isEmpty()) {
                            throw new InvalidJobException(ip + ".keys must be a non-empty array of field names");
                        }
                        for (JsonValue k : kv.asJsonArray()) {
                            if (!(k instanceof JsonString ks)) {
                                throw new InvalidJobException(ip + ".keys must hold field names (strings), found " + k);
                            }
                            ri.keys.add(ks.getString());
                        }
                    }
                    if (ri.partitioning == Partitioning.HASH && ri.keys.isEmpty()) {
                        throw new InvalidJobException(ip + ".keys is required for hash partitioning");
                    }
                    if (ri.partitioning != Partitioning.HASH && !ri.keys.isEmpty()) {
                        throw new InvalidJobException(ip + ".keys is only allowed with \"partitioning\": \"hash\"");
                    }
                } else {
                    throw new InvalidJobException(ip + " must be an operator id or an object with \"from\", found " + kind(in));
                }
                op.inputs.add(ri);
            }
        }
        if (op.kind == VertexKind.SOURCE && !op.inputs.isEmpty()) {
            throw new InvalidJobException(path + " is a source ('" + op.type + "') and cannot have inputs");
        }
        if (op.kind != VertexKind.SOURCE && op.inputs.isEmpty()) {
            throw new InvalidJobException(path + ".inputs is missing: operator '" + op.id + "' ('" + op.type + "') needs at least one input");
        }
        return op;
    }

    private static String requireString(JsonObject o, String key, String path) throws InvalidJobException {
        JsonValue v = o.get(key);
        if (v == null) {
            throw new InvalidJobException(path + " is required");
        }
        if (!(v instanceof JsonString s) || s.getString().isBlank()) {
            throw new InvalidJobException(path + " must be a non-empty string, got " + v);
        }
        return s.getString();
    }

    private static JsonArray requireArray(JsonObject o, String key, String path) throws InvalidJobException {
        JsonValue v = o.get(key);
        if (v == null) {
            throw new InvalidJobException(path + " is required");
        }
        if (v.getValueType() != JsonValue.ValueType.ARRAY) {
            throw new InvalidJobException(path + " must be an array, found " + kind(v));
        }
        return v.asJsonArray();
    }

    static String kind(JsonValue v) {
        return v.getValueType().name().toLowerCase(Locale.ROOT) + " " + v;
    }

    /** Converts a JSON value to String, Long, Double, Boolean, List or Map (null for JSON null). */
    static Object toJava(JsonValue v) {
        return switch (v.getValueType()) {
            case STRING -> ((JsonString) v).getString();
            case NUMBER -> ((JsonNumber) v).isIntegral() ? (Object) ((JsonNumber) v).longValue() : (Object) ((JsonNumber) v).doubleValue();
            case TRUE -> Boolean.TRUE;
            case FALSE -> Boolean.FALSE;
            case NULL -> null;
            case ARRAY -> {
                List<Object> list = new ArrayList<>();
                for (JsonValue e : v.asJsonArray()) {
                    list.add(toJava(e));
                }
                yield list;
            }
            case OBJECT -> {
                Map<String, Object> map = new LinkedHashMap<>();
                for (Map.Entry<String, JsonValue> e : v.asJsonObject().entrySet()) {
                    map.put(e.getKey(), toJava(e.getValue()));
                }
                yield map;
            }
        };
    }
}
