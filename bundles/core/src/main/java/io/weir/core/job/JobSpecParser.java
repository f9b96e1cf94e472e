package io.weir.core.job;

import io.weir.api.plugin.OperatorFactory;
import io.weir.api.plugin.PluginConfig;
import io.weir.core.config.ConfigOption;
import io.weir.core.config.Configuration;
import io.weir.core.config.EngineOptions;
import io.weir.core.config.ExecutionOptions;
import io.weir.core.plugin.PluginRegistry;
import jakarta.json.JsonObject;
import jakarta.json.JsonString;
import jakarta.json.spi.JsonProvider;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;

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
 * <p>Three stages, one class each: reading ({@link JobSpecReader}: JSON → name, raw config, raw operators),
 * option parsing ({@link JobOptionsParser}: config and {@code --set} → {@link Configuration}) and graph building
 * ({@link JobGraphBuilder}); this class runs them in that order and resolves each operator's plugin.
 *
 * <p>Thread-safe.
 */
public final class JobSpecParser {
    private final PluginRegistry plugins;
    /** Why a type no factory serves is unusable (a plugin declares it but failed), or empty. */
    private final Function<String, Optional<String>> whyUnavailable;
    private final JobSpecReader reader;

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
        this.reader = new JobSpecReader(json);
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
        JobSpecReader.RawJob raw = reader.read(text);
        Configuration config = JobOptionsParser.parse(raw.config(), overrides, baseDirectory);
        int maxParallelism = config.get(ExecutionOptions.MAX_PARALLELISM);
        Map<String, RawOperator> byId = reader.readOperators(raw, baseDirectory, maxParallelism, (o, op) -> bind(o, op, excluded));
        JobOptionsParser.overrideParallelism(config, overrides, byId, maxParallelism);
        JobGraphBuilder.checkInputs(byId);
        JobOptionsParser.checkFailureInjection(config, overrides, byId);
        return JobGraphBuilder.build(raw.name(), config, byId);
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
}
