package io.weir.core.job;

import io.weir.core.config.CheckpointingOptions;
import io.weir.core.config.ConfigOption;
import io.weir.core.config.Configuration;
import io.weir.core.config.EngineOptions;
import io.weir.core.config.ExecutionOptions;

import java.nio.file.Path;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * The option-parsing stage of {@link JobSpecParser}: the job's settings (its {@code config} object and the
 * {@code --set key=value} overrides) into a checked {@link Configuration}, and the options that act on the
 * operators read ({@code pipeline.jobvertex-parallelism-overrides}, {@code debug.inject-failure.*}). Errors about
 * an override name the {@code --set key=value}, not the job file.
 *
 * <p>Stateless; thread-safe.
 */
final class JobOptionsParser {
    private static final Map<String, ConfigOption<?>> OPTIONS = new HashMap<>();

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

    private JobOptionsParser() {
    }

    /**
     * The job's configuration: the job file's {@code config} entries, then the {@code --set} overrides; the checkpoint
     * and savepoint paths resolved against {@code baseDirectory}; then {@code pipeline.max-parallelism} checked.
     *
     * @param fileConfig the job file's {@code config} entries ({@link JobSpecReader.RawJob#config()})
     * @param overrides {@code --set key=value} from the command line, applied last
     * @param baseDirectory the job file's directory
     * @throws InvalidJobException naming the option ({@code config.<key>} or {@code --set <key>=<value>}) when a key is
     *         unknown or an engine option, a value does not parse or is out of its bound, or max parallelism is
     *         outside 1..32768
     */
    static Configuration parse(Map<String, Object> fileConfig, Map<String, String> overrides, Path baseDirectory)
            throws InvalidJobException {
        Map<String, Object> raw = new HashMap<>(fileConfig);
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
        Configuration config = new Configuration(raw);
        int maxParallelism = config.get(ExecutionOptions.MAX_PARALLELISM);
        if (maxParallelism < 1 || maxParallelism > 32768) {
            throw new InvalidJobException(optionSubject(ExecutionOptions.MAX_PARALLELISM.key(), overrides)
                    + " must be between 1 and 32768, got " + maxParallelism);
        }
        return config;
    }

    /**
     * Applies {@code pipeline.jobvertex-parallelism-overrides} ({@code id:n,id:n}) to the parsed operators: each id
     * must be an operator of this job, given once, with a parallelism in 1..max-parallelism. Runs before the edge
     * checks, so a forward edge left with unequal parallelism is reported as for a job file.
     */
    static void overrideParallelism(Configuration config, Map<String, String> overrides, Map<String, RawOperator> byId,
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
    static void checkFailureInjection(Configuration config, Map<String, String> overrides, Map<String, RawOperator> byId)
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
}
