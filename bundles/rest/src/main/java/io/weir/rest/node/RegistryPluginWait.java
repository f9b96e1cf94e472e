package io.weir.rest.node;

import io.weir.core.plugin.PluginRegistry;
import jakarta.json.JsonArray;
import jakarta.json.JsonException;
import jakarta.json.JsonObject;
import jakarta.json.JsonReader;
import jakarta.json.JsonString;
import jakarta.json.JsonValue;
import jakarta.json.spi.JsonProvider;

import java.io.StringReader;
import java.time.Duration;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Function;

/**
 * {@link PluginWait} that polls the {@link PluginRegistry} every {@value #POLL_MS} ms until it
 * holds every {@code operators[*].type} of the spec, for at most the given timeout. A type that a
 * failed plugin declares ({@code whyUnavailable} has a reason) will not come: it ends the wait at once.
 *
 * <p>Thread-safe: holds only collaborators.
 */
public final class RegistryPluginWait implements PluginWait {
    static final long POLL_MS = 50;

    private final PluginRegistry plugins;
    private final JsonProvider json;
    private final Duration timeout;
    private final Function<String, Optional<String>> whyUnavailable;

    /**
     * @param plugins the installed plugins
     * @param json JSON-P provider to read the type names
     * @param timeout the longest wait (about 10 s: FileInstall installs a plugin in well under 1 s)
     */
    public RegistryPluginWait(PluginRegistry plugins, JsonProvider json, Duration timeout) {
        this(plugins, json, timeout, type -> Optional.empty());
    }

    /**
     * @param plugins the installed plugins
     * @param json JSON-P provider to read the type names
     * @param timeout the longest wait
     * @param whyUnavailable why a missing type cannot come (its plugin failed), or empty while it may still come
     */
    public RegistryPluginWait(PluginRegistry plugins, JsonProvider json, Duration timeout,
            Function<String, Optional<String>> whyUnavailable) {
        this.whyUnavailable = whyUnavailable;
        this.plugins = plugins;
        this.json = json;
        this.timeout = timeout;
    }

    @Override
    public void await(String spec) throws InterruptedException {
        Set<String> types = typesNamed(spec);
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            Set<String> missing = new TreeSet<>(types);
            missing.removeAll(plugins.types());
            if (missing.isEmpty() || missing.stream().anyMatch(t -> whyUnavailable.apply(t).isPresent())) {
                return;
            }
            Thread.sleep(POLL_MS);
        }
    }

    /** Lenient: whatever is malformed is left to the job parser, which names the field. */
    Set<String> typesNamed(String spec) {
        Set<String> types = new TreeSet<>();
        try (JsonReader reader = json.createReader(new StringReader(spec))) {
            JsonValue root = reader.readValue();
            if (root instanceof JsonObject o && o.get("operators") instanceof JsonArray ops) {
                for (JsonValue op : ops) {
                    if (op instanceof JsonObject opObject && opObject.get("type") instanceof JsonString type) {
                        types.add(type.getString());
                    }
                }
            }
        } catch (JsonException e) {
            // not JSON: the parser says where
        }
        return types;
    }
}
