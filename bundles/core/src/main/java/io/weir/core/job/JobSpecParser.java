package io.weir.core.job;

import io.weir.api.Schema;
import io.weir.api.plugin.OperatorFactory;
import io.weir.api.plugin.PluginConfig;
import io.weir.api.plugin.SinkFactory;
import io.weir.api.plugin.SourceFactory;
import io.weir.core.config.CheckpointingOptions;
import io.weir.core.config.ConfigOption;
import io.weir.core.config.Configuration;
import io.weir.core.config.EngineOptions;
import io.weir.core.config.ExecutionOptions;
import io.weir.core.plugin.PluginRegistry;
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
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Function;
import java.util.regex.Pattern;

/**
 * Parses and validates a job file (format: {@code docs/job-format.md}) into a {@link JobGraph}.
 * Every error is an {@link InvalidJobException} naming the field by its path
 * ({@code operators[1].inputs[0].keys}) and saying what to do; nothing is started on error.
 *
 * <p>Checks: valid JSON (errors give line and column); no unknown fields in the job, operator and
 * input objects; a name that is a plain file name (it names the checkpoint directory); unique
 * operator ids; known plugin types (listing the installed ones); parallelism
 * 1..{@code pipeline.max-parallelism}; inputs naming existing operators; no cycles (naming only the
 * operators on them); sources without and other operators with inputs; sinks not used as inputs;
 * forward edges of equal parallelism; hash keys present in the upstream schema; keyed operators fed
 * only by hash edges whose keys are the operator's own key fields ({@link OperatorFactory#keyFields});
 * each plugin's own config validation (e.g. the input file exists) and no config key the plugin did
 * not read while validating ({@link PluginConfig#unaskedKeys()}); configuration keys known job
 * options (an {@linkplain EngineOptions engine option} is refused, saying where it goes), their
 * values parseable and within the option's bound ({@link ConfigOption#check}); a failure injection
 * waiting for checkpoints only with a checkpoint interval. Errors about {@code --set} overrides
 * name the {@code --set key=value}, not the job file.
 *
 * <p>Thread-safe.
 */
public final class JobSpecParser {
    private static final Map<String, ConfigOption<?>> OPTIONS = new HashMap<>();
    /** The fields of a job object, of an operator and of an input object (docs/job-format.md). */
    private static final List<String> TOP_LEVEL_FIELDS = List.of("name", "config", "operators");
    private static final List<String> OPERATOR_FIELDS = List.of("id", "type", "version", "parallelism", "inputs", "config");
    private static final List<String> INPUT_FIELDS = List.of("from", "output", "partitioning", "keys");
    /** A job name names a directory: letters, digits, '-', '_', '.', not starting with '.'. */
    private static final Pattern PLAIN_NAME = Pattern.compile("[\\p{L}\\p{N}_-][\\p{L}\\p{N}_.-]*");

    static {
        for (ConfigOption<?> o : CheckpointingOptions.all()) {
            OPTIONS.put(o.key(), o);
        }
        for (ConfigOption<?> o : ExecutionOptions.all()) {
            OPTIONS.put(o.key(), o);
        }
        for (ConfigOption<?> o : io.weir.core.config.StateBackendOptions.all()) {
            OPTIONS.put(o.key(), o);
        }
    }

    private final PluginRegistry plugins;
    /** Why a type no factory serves is unusable (a plugin declares it but failed), or empty. */
    private final Function<String, Optional<String>> whyUnavailable;
    private final JsonProvider json;
    private final JsonReaderFactory strictReaders;

    /**
     * @param plugins the installed plugins
     * @param json the JSON-P provider (in OSGi the one the framework offers; else {@link JsonProvider#provider()})
     */
    public JobSpecParser(PluginRegistry plugins, JsonProvider json) {
        this(plugins, json, type -> Optional.empty());
    }

    /**
     * @param plugins the installed plugins
     * @param json the JSON-P provider
     * @param whyUnavailable for a type no factory serves, why (e.g. the plugin that declares it failed to activate),
     *        or empty; used instead of "not an installed plugin type" ({@code PluginInventory#whyUnavailable})
     */
    public JobSpecParser(PluginRegistry plugins, JsonProvider json, Function<String, Optional<String>> whyUnavailable) {
        this.plugins = plugins;
        this.whyUnavailable = whyUnavailable;
        this.json = json;
        // a field given twice is a mistake to report, not a value to pick silently
        this.strictReaders = json.createReaderFactory(Map.of(JsonConfig.KEY_STRATEGY, JsonConfig.KeyStrategy.NONE));
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
     * @param text the job file's content
     * @param baseDirectory directory relative paths in plugin configs resolve against
     * @param overrides configuration set on the command line ({@code --set key=value}), applied last
     * @return the validated job
     * @throws InvalidJobException naming the bad field
     */
    public JobGraph parse(String text, Path baseDirectory, Map<String, String> overrides) throws InvalidJobException {
        return parse(text, baseDirectory, overrides, Set.of());
    }

    /**
     * As {@link #parse(String, Path, Map)}, never binding an operator to a plugin of an origin in {@code excluded}
     * (the node passes the versions a job rolled back from, so it stays on the old one until a newer one appears).
     *
     * @param excluded plugin bundles and versions not to pick; empty for none
     * @return the validated job, each vertex bound to the factory it runs with ({@link JobVertex#plugin()})
     * @throws InvalidJobException naming the bad field; also when no installed version of a type fits the operator's
     *         {@code version} range (listing the installed versions) or the version picked is served by two bundles
     */
    public JobGraph parse(String text, Path baseDirectory, Map<String, String> overrides, Set<io.weir.core.plugin.PluginOrigin> excluded)
            throws InvalidJobException {
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
        Configuration config = parseConfig(root, overrides, baseDirectory);
        int maxParallelism = config.get(ExecutionOptions.MAX_PARALLELISM);
        if (maxParallelism < 1 || maxParallelism > 32768) {
            throw new InvalidJobException(optionSubject(ExecutionOptions.MAX_PARALLELISM.key(), overrides)
                    + " must be between 1 and 32768, got " + maxParallelism);
        }

        JsonArray ops = requireArray(root, "operators", "operators");
        if (ops.isEmpty()) {
            throw new InvalidJobException("operators must list at least a source and a sink");
        }
        Map<String, RawOperator> byId = new LinkedHashMap<>();
        for (int i = 0; i < ops.size(); i++) {
            String path = "operators[" + i + "]";
            if (ops.get(i).getValueType() != JsonValue.ValueType.OBJECT) {
                throw new InvalidJobException(path + " must be an object, found " + kind(ops.get(i)));
            }
            RawOperator op = parseOperator(ops.get(i).asJsonObject(), path, baseDirectory, maxParallelism, excluded);
            if (byId.put(op.id, op) != null) {
                throw new InvalidJobException(path + ".id '" + op.id + "' is used twice; operator ids must be unique");
            }
        }
        overrideParallelism(config, overrides, byId, maxParallelism);
        for (RawOperator op : byId.values()) {
            for (RawInput in : op.inputs) {
                RawOperator from = byId.get(in.from);
                if (from == null) {
                    throw new InvalidJobException(in.path + ".from names '" + in.from + "', which is not an operator of this job; known: " + byId.keySet());
                }
                if (from.kind == VertexKind.SINK) {
                    throw new InvalidJobException(in.path + ".from names sink '" + in.from + "'; a sink has no output");
                }
            }
        }
        checkFailureInjection(config, overrides, byId);
        List<RawOperator> order = topologicalOrder(byId);
        return buildGraph(name, config, order, byId);
    }

    /**
     * Applies {@code pipeline.jobvertex-parallelism-overrides} ({@code id:n,id:n}) to the parsed operators: each id
     * must be an operator of this job, given once, with a parallelism in 1..max-parallelism. Runs before the edge
     * checks, so a forward edge left with unequal parallelism is reported as for a job file.
     */
    private static void overrideParallelism(Configuration config, Map<String, String> overrides, Map<String, RawOperator> byId,
                                            int maxParallelism) throws InvalidJobException {
        String value = config.get(ExecutionOptions.PARALLELISM_OVERRIDES);
        if (value == null || value.isBlank()) {
            return;
        }
        String subject = optionSubject(ExecutionOptions.PARALLELISM_OVERRIDES.key(), overrides);
        Map<String, Integer> parallelism = new LinkedHashMap<>();
        for (String pair : value.split(",", -1)) {
            int colon = pair.lastIndexOf(':');
            String id = colon < 0 ? "" : pair.substring(0, colon).trim();
            String number = colon < 0 ? "" : pair.substring(colon + 1).trim();
            if (id.isEmpty() || !number.matches("\\d{1,9}")) {
                throw new InvalidJobException(subject + " must be operator-id:parallelism pairs separated by commas"
                        + " (e.g. per-origin:4,out:4); '" + pair.trim() + "' is not one");
            }
            if (!byId.containsKey(id)) {
                throw new InvalidJobException(subject + " names '" + id + "', which is not an operator of this job; known: " + byId.keySet());
            }
            int p = Integer.parseInt(number);
            if (p < 1 || p > maxParallelism) {
                throw new InvalidJobException(subject + " sets the parallelism of '" + id + "' to " + p
                        + "; it must be between 1 and " + maxParallelism + " (pipeline.max-parallelism)");
            }
            if (parallelism.put(id, p) != null) {
                throw new InvalidJobException(subject + " names '" + id + "' twice; give each operator once");
            }
        }
        parallelism.forEach((id, p) -> byId.get(id).parallelism = p);
    }

    /** {@code debug.inject-failure.operator} must name an operator or sink of this job (sources have no record hook). */
    private static void checkFailureInjection(Configuration config, Map<String, String> overrides, Map<String, RawOperator> byId)
            throws InvalidJobException {
        String target = config.get(ExecutionOptions.INJECT_FAILURE_OPERATOR);
        if (target == null) {
            return;
        }
        RawOperator op = byId.get(target);
        String subject = optionSubject(ExecutionOptions.INJECT_FAILURE_OPERATOR.key(), overrides);
        if (op == null) {
            throw new InvalidJobException(subject + " names '" + target + "', which is not an operator of this job; known: " + byId.keySet());
        }
        if (op.kind == VertexKind.SOURCE) {
            throw new InvalidJobException(subject + " names source '" + target + "'; failures can be injected into"
                    + " operators and sinks (they fail while processing a record), name one downstream of it");
        }
        int checkpoints = config.get(ExecutionOptions.INJECT_FAILURE_AFTER_CHECKPOINTS);
        if (checkpoints > 0 && !config.contains(CheckpointingOptions.INTERVAL)) {
            throw new InvalidJobException(optionSubject(ExecutionOptions.INJECT_FAILURE_AFTER_CHECKPOINTS.key(), overrides)
                    + " waits for " + checkpoints + " completed checkpoints, but execution.checkpointing.interval is not set,"
                    + " so the only checkpoint is the final one, after the last record: set execution.checkpointing.interval"
                    + " (e.g. --set execution.checkpointing.interval=100ms) or set after-checkpoints to 0");
        }
    }

    private Configuration parseConfig(JsonObject root, Map<String, String> overrides, Path baseDirectory) throws InvalidJobException {
        Map<String, Object> raw = new HashMap<>();
        if (root.containsKey("config")) {
            JsonValue cv = root.get("config");
            if (cv.getValueType() != JsonValue.ValueType.OBJECT) {
                throw new InvalidJobException("config must be an object of option keys to values, found " + kind(cv));
            }
            for (Map.Entry<String, JsonValue> e : cv.asJsonObject().entrySet()) {
                if (e.getValue().getValueType() != JsonValue.ValueType.NULL) {
                    raw.put(e.getKey(), toJava(e.getValue()));
                }
            }
        }
        raw.putAll(overrides);
        // the checkpoint directory, like every path in a job, is relative to the job file's directory
        Object dir = raw.getOrDefault(CheckpointingOptions.DIRECTORY.key(), CheckpointingOptions.DIRECTORY.defaultValue());
        raw.put(CheckpointingOptions.DIRECTORY.key(), baseDirectory.resolve(String.valueOf(dir)).normalize().toString());
        for (ConfigOption<String> pathOption : List.of(CheckpointingOptions.SAVEPOINT_DIRECTORY, CheckpointingOptions.SAVEPOINT_PATH)) {
            Object path = raw.get(pathOption.key());
            if (path != null) {
                raw.put(pathOption.key(), baseDirectory.resolve(String.valueOf(path)).normalize().toString());
            }
        }
        for (String key : new TreeSet<>(raw.keySet())) {
            ConfigOption<?> option = OPTIONS.get(key);
            if (option == null && EngineOptions.byKey(key).isPresent()) {
                throw new InvalidJobException(optionSubject(key, overrides) + " is an engine option (shared by every job"
                        + " the engine runs), not a job option: set it in the engine's configuration, " + EngineOptions.FILE
                        + " (ConfigurationAdmin PID " + EngineOptions.PID + "), and remove it from the job; see docs/configuration.md");
            }
            if (option == null) {
                throw new InvalidJobException(optionSubject(key, overrides) + " is not a known option; see docs/configuration.md");
            }
            String parsePrefix = overrides.containsKey(key) ? "--set " + key + "=" + overrides.get(key) + ": " : "config." + key + ": ";
            check(option, raw.get(key), parsePrefix, optionSubject(key, overrides));
        }
        return new Configuration(raw);
    }

    /** Parses {@code value} with {@code option} and checks its bound ({@link ConfigOption#check}). */
    private static <T> void check(ConfigOption<T> option, Object value, String parsePrefix, String subject)
            throws InvalidJobException {
        T parsed;
        try {
            parsed = option.parser().apply(value);
        } catch (RuntimeException ex) {
            throw new InvalidJobException(parsePrefix + ex.getMessage(), ex);
        }
        try {
            option.check(parsed);
        } catch (IllegalArgumentException ex) {
            throw new InvalidJobException(subject + " " + ex.getMessage(), ex);
        }
    }

    /**
     * @return how an error names option {@code key}: {@code config.<key>} when it comes from the job
     *         file, {@code --set <key>=<value>: <key>} when from the command line
     */
    private static String optionSubject(String key, Map<String, String> overrides) {
        return overrides.containsKey(key) ? "--set " + key + "=" + overrides.get(key) + ": " + key : "config." + key;
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

    private RawOperator parseOperator(JsonObject o, String path, Path baseDirectory, int maxParallelism,
            Set<io.weir.core.plugin.PluginOrigin> excluded) throws InvalidJobException {
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
        op.binding = bind(o, op, excluded);
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

    private List<RawOperator> topologicalOrder(Map<String, RawOperator> byId) throws InvalidJobException {
        Map<String, Integer> indegree = new HashMap<>();
        Map<String, List<String>> consumers = new HashMap<>();
        for (RawOperator op : byId.values()) {
            indegree.put(op.id, op.inputs.size());
            for (RawInput in : op.inputs) {
                consumers.computeIfAbsent(in.from, k -> new ArrayList<>()).add(op.id);
            }
        }
        Deque<String> ready = new ArrayDeque<>();
        for (RawOperator op : byId.values()) {
            if (op.inputs.isEmpty()) {
                ready.add(op.id);
            }
        }
        List<RawOperator> order = new ArrayList<>();
        while (!ready.isEmpty()) {
            String id = ready.poll();
            order.add(byId.get(id));
            for (String c : consumers.getOrDefault(id, List.of())) {
                if (indegree.merge(c, -1, Integer::sum) == 0) {
                    ready.add(c);
                }
            }
        }
        if (order.size() < byId.size()) {
            throw new InvalidJobException("operators form a cycle through " + onCycles(byId, order)
                    + "; a job must be a directed acyclic graph: check their inputs");
        }
        return order;
    }

    /**
     * @param order the operators Kahn's algorithm could order (not on or downstream of a cycle)
     * @return the ids, in job-file order, of the operators on a cycle or between cycles: of the
     *         unordered operators (each has an input among them), repeatedly drops those that no
     *         remaining operator consumes, i.e. those only downstream of a cycle
     */
    private static List<String> onCycles(Map<String, RawOperator> byId, List<RawOperator> order) {
        Set<String> remaining = new LinkedHashSet<>(byId.keySet());
        order.forEach(o -> remaining.remove(o.id));
        boolean dropped = true;
        while (dropped) {
            Set<String> consumed = new HashSet<>();
            for (String id : remaining) {
                for (RawInput in : byId.get(id).inputs) {
                    consumed.add(in.from);
                }
            }
            dropped = remaining.retainAll(consumed);
        }
        return new ArrayList<>(remaining);
    }

    private JobGraph buildGraph(String name, Configuration config, List<RawOperator> order, Map<String, RawOperator> byId)
            throws InvalidJobException {
        Map<String, Schema> outputs = new HashMap<>();
        Map<String, Schema> inputsOf = new HashMap<>();
        List<JobVertex> vertices = new ArrayList<>();
        List<JobEdge> edges = new ArrayList<>();
        Set<String> consumed = new HashSet<>();
        for (RawOperator op : order) {
            Schema input = null;
            boolean hash = false;
            for (RawInput in : op.inputs) {
                consumed.add(in.from);
                Schema upstream = outputs.get(in.from);
                RawOperator from = byId.get(in.from);
                if (in.output != null) {
                    List<String> declared = from.kind == VertexKind.OPERATOR
                            ? ((OperatorFactory) from.binding.factory()).sideOutputs(from.config) : List.of();
                    if (!declared.contains(in.output)) {
                        throw new InvalidJobException(in.path + ".output '" + in.output + "' is not a side output of '" + in.from
                                + "' (" + from.type + "); its side outputs: " + declared
                                + (from.type.equals("window-aggregate") ? " (set its late-output)" : ""));
                    }
                    upstream = inputsOf.get(in.from); // a side output carries the producer's input rows
                }
                if (input != null && !input.equals(upstream)) {
                    throw new InvalidJobException(in.path + " delivers rows " + upstream + " but an earlier input delivers "
                            + input + "; all inputs of an operator must have the same schema");
                }
                input = upstream;
                if (in.partitioning == Partitioning.FORWARD && from.parallelism != op.parallelism) {
                    throw new InvalidJobException(in.path + " is a forward edge from '" + in.from + "' (parallelism "
                            + from.parallelism + ") to '" + op.id + "' (parallelism " + op.parallelism
                            + "); use equal parallelism or \"partitioning\": \"rebalance\"");
                }
                for (String k : in.keys) {
                    if (upstream.indexOf(k) < 0) {
                        throw new InvalidJobException(in.path + ".keys names field '" + k + "', which '" + in.from
                                + "' does not produce; its fields: " + upstream.names());
                    }
                }
                hash |= in.partitioning == Partitioning.HASH;
                edges.add(new JobEdge(in.from, op.id, in.partitioning, in.keys, in.output));
            }
            if (hash && op.inputs.stream().anyMatch(i -> i.partitioning != Partitioning.HASH
                    || !i.keys.equals(op.inputs.get(0).keys))) {
                throw new InvalidJobException(op.path + ".inputs mix keyed and non-keyed edges (or different keys); "
                        + "all inputs of a keyed operator must be hash edges on the same keys");
            }
            Schema output;
            boolean keyed = false;
            try {
                switch (op.kind) {
                    case SOURCE -> {
                        output = ((SourceFactory) op.binding.factory()).outputSchema(op.config);
                        // event-time settings are the runtime's, valid for every source type
                        io.weir.core.config.WatermarkSettings.of(op.config, output);
                    }
                    case OPERATOR -> {
                        OperatorFactory f = (OperatorFactory) op.binding.factory();
                        output = f.outputSchema(op.config, input);
                        keyed = f.requiresKeyedInput();
                        if (keyed) {
                            checkKeyedInput(op, f);
                        }
                    }
                    default -> {
                        ((SinkFactory) op.binding.factory()).validate(op.config, input);
                        output = null;
                    }
                }
            } catch (IllegalArgumentException e) {
                throw new InvalidJobException(e.getMessage() + unreadKeysNote(op), e);
            }
            Set<String> unknown = op.config.unaskedKeys();
            if (!unknown.isEmpty()) {
                throw new InvalidJobException(op.config.path() + "." + unknown.iterator().next()
                        + " is not a setting of plugin type '" + op.type + "'; its settings: " + op.config.askedKeys());
            }
            outputs.put(op.id, output);
            inputsOf.put(op.id, input);
            vertices.add(new JobVertex(op.id, op.kind, op.type, op.parallelism, op.config, input, output, hash, op.range,
                    op.binding));
        }
        for (RawOperator op : order) {
            if (op.kind != VertexKind.SINK && !consumed.contains(op.id)) {
                throw new InvalidJobException(op.path + " ('" + op.id + "') has no consumer: its output would be lost; "
                        + "connect it to an operator or a sink");
            }
        }
        return new JobGraph(name, config, vertices, edges);
    }

    /**
     * A keyed operator's state is scoped by the key the runtime extracts with its input edge's hash
     * {@code keys}; the operator labels its output with its own key fields. Both must be the same
     * fields, or rows of different groups share one state entry and come out under the wrong key.
     *
     * @throws InvalidJobException if an input is not a hash edge (naming the edge and its
     *         partitioning), or if the operator declares key fields ({@link OperatorFactory#keyFields})
     *         that are not the same set as the edge's keys (naming the operator id, both field lists)
     */
    private static void checkKeyedInput(RawOperator op, OperatorFactory factory) throws InvalidJobException {
        for (RawInput in : op.inputs) {
            if (in.partitioning != Partitioning.HASH) {
                throw new InvalidJobException(op.path + " ('" + op.id + "', " + op.type + ") keeps keyed state, but its input "
                        + in.path + " from '" + in.from + "' is \"partitioning\": \"" + in.partitioning.name().toLowerCase(Locale.ROOT)
                        + "\"; a keyed operator's inputs must be \"partitioning\": \"hash\" with \"keys\" naming its key fields");
            }
        }
        List<String> declared = factory.keyFields(op.config);
        List<String> edgeKeys = op.inputs.get(0).keys;
        if (!declared.isEmpty() && !new HashSet<>(declared).equals(new HashSet<>(edgeKeys))) {
            throw new InvalidJobException(op.path + " ('" + op.id + "', " + op.type + ") groups by " + op.config.path()
                    + ".key " + declared + ", but its input " + op.inputs.get(0).path + ".keys hash-partitions by " + edgeKeys
                    + "; state would be kept per " + edgeKeys + " and rows labelled with " + declared
                    + ": use the same fields in both");
        }
    }

    /**
     * @return for a plugin whose validation failed, a note naming the config keys it had not read
     *         (often a misspelt setting, e.g. {@code pth} for a missing {@code path}), or ""
     */
    private static String unreadKeysNote(RawOperator op) {
        Set<String> unread = op.config.unaskedKeys();
        if (unread.isEmpty()) {
            return "";
        }
        return " (note: " + op.config.path() + " also has " + String.join(", ", unread) + ", which plugin type '"
                + op.type + "' had not read when it failed; settings read: " + op.config.askedKeys() + ")";
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

    private static String kind(JsonValue v) {
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

    private static final class RawOperator {
        String path;
        String id;
        String type;
        int parallelism;
        VertexKind kind;
        PluginConfig config;
        io.weir.core.plugin.VersionRange range;
        io.weir.core.plugin.PluginBinding binding;
        final List<RawInput> inputs = new ArrayList<>();
    }

    /**
     * Resolves an operator's type within its {@code version} range (default: any, the highest installed).
     *
     * @throws InvalidJobException if the range is malformed, the type is not installed, no installed version fits
     *         (listing them), or the version picked is served by two bundles (naming them)
     */
    private io.weir.core.plugin.PluginBinding bind(JsonObject o, RawOperator op, Set<io.weir.core.plugin.PluginOrigin> excluded)
            throws InvalidJobException {
        op.range = io.weir.core.plugin.VersionRange.ANY;
        if (o.containsKey("version")) {
            if (!(o.get("version") instanceof JsonString v)) {
                throw new InvalidJobException(op.path + ".version must be a string such as \"[1.0,2.0)\", got " + o.get("version"));
            }
            try {
                op.range = io.weir.core.plugin.VersionRange.parse(v.getString());
            } catch (IllegalArgumentException e) {
                throw new InvalidJobException(op.path + ".version " + e.getMessage(), e);
            }
        }
        Optional<io.weir.core.plugin.PluginBinding> binding;
        try {
            binding = plugins.resolve(op.type, op.range, excluded);
        } catch (io.weir.core.plugin.PluginResolutionException e) {
            throw new InvalidJobException(op.path + ".type: " + e.getMessage(), e);
        }
        if (binding.isPresent()) {
            return binding.get();
        }
        List<io.weir.core.plugin.PluginOrigin> installed = plugins.versions(op.type);
        if (installed.isEmpty()) {
            Optional<String> why = whyUnavailable.apply(op.type);
            if (why.isPresent()) {
                throw new InvalidJobException(op.path + ".type: " + why.get());
            }
            throw new InvalidJobException(op.path + ".type '" + op.type + "' is not an installed plugin type; installed: "
                    + plugins.types() + ". Install the plugin bundle into plugins/ or fix the type.");
        }
        throw new InvalidJobException(op.path + ".version: no installed version of plugin type '" + op.type + "' is in "
                + op.range + (excluded.isEmpty() ? "" : " (not counting " + excluded + ", which the job rolled back from)")
                + "; installed: " + installed + ". Install a version in the range or change the range.");
    }

    private static final class RawInput {
        String path;
        String from;
        Partitioning partitioning;
        List<String> keys;
        /** Side output name, null for the main output. */
        String output;
    }
}
