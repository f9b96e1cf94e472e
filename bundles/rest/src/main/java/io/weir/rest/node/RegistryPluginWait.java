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
import java.util.Set;
import java.util.TreeSet;

/**
 * {@link PluginWait} that polls the {@link PluginRegistry} every {@value #POLL_MS} ms until it
 * holds every {@code operators[*].type} of the spec, for at most the given timeout.
 *
 * <p>Thread-safe: holds only collaborators.
 */
public final class RegistryPluginWait implements PluginWait {
    static final long POLL_MS = 50;

    private final PluginRegistry plugins;
    private final JsonProvider json;
    private final Duration timeout;

    /**
     * @param plugins the installed plugins
     * @param json JSON-P provider to read the type names
     * @param timeout the longest wait (about 10 s: FileInstall installs a plugin in well under 1 s)
     */
    public RegistryPluginWait(PluginRegistry plugins, JsonProvider json, Duration timeout) {
        this.plugins = plugins;
        this.json = json;
        this.timeout = timeout;
    }

    @Override
    public void await(String spec) throws InterruptedException {
        Set<String> types = typesNamed(spec);
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!plugins.types().containsAll(types) && System.nanoTime() < deadline) {
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
