package io.weir.rest.plugins;

import io.weir.core.inventory.InstalledPlugin;
import io.weir.core.inventory.PluginInventory;
import io.weir.core.inventory.PluginType;
import io.weir.core.plugin.MapPluginRegistry;
import io.weir.rest.node.NodeJob;
import io.weir.rest.node.NodeJobs;
import io.weir.rest.node.PluginWait;
import io.weir.rest.node.TestEngine;
import io.weir.rest.node.TestPlugins;
import io.weir.rest.resource.JsonContract;
import jakarta.json.JsonObject;
import jakarta.json.spi.JsonProvider;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The REST contract of {@code /plugins}: plugins with state, types (and settings), error and the jobs using them. */
class PluginsResourceTest {
    private final TestEngine engine = new TestEngine();
    private final MapPluginRegistry registry = TestPlugins.registry();
    private final List<InstalledPlugin> installed = List.of(
            new InstalledPlugin("boom", "1.0.0", "ACTIVE", "boom.jar", List.of(new PluginType("boom-op", "operator")),
                    "component boom.Boom failed to activate: java.lang.IllegalStateException: no licence"),
            new InstalledPlugin("test.numbers", "2.0.0", "ACTIVE", "numbers.jar", List.of(new PluginType("numbers", "source")), null),
            new InstalledPlugin(null, null, "FAILED", "x.jar", List.of(), "x.jar is not a jar (zip) file"));
    private final PluginInventory inventory = new PluginInventory() {
        @Override
        public List<InstalledPlugin> plugins() {
            return installed;
        }

        @Override
        public Optional<String> whyUnavailable(String type) {
            return Optional.empty();
        }
    };
    private final NodeJobs jobs = new NodeJobs(engine, registry, JsonProvider.provider(), PluginWait.NONE, () -> 0L);

    private PluginsResource resource(Path pluginsDir) {
        return new PluginsResource(jobs, registry, () -> inventory,
                f -> f.getClass().getName().contains("TestPlugins") ? "test.numbers 2.0.0" : "?",
                () -> new PluginDirectory(pluginsDir, 1 << 20), Duration.ofSeconds(1));
    }

    @Test
    void everyPluginWithStateFileTypesErrorAndTheRunningJobsUsingIt() {
        NodeJob running = jobs.submit(TestPlugins.job("uses-numbers", 1), Path.of("/"), Map.of());
        jobs.submit(TestPlugins.job("ended", 1), Path.of("/"), Map.of());
        engine.finish("ended");

        JsonObject json = JsonContract.json(resource(Path.of("/nonexistent")).list());

        List<JsonObject> plugins = json.getJsonArray("plugins").getValuesAs(JsonObject.class);
        assertThat(plugins).extracting(p -> p.get("bundle").toString() + " " + p.getString("state") + " " + p.getString("file"))
                .containsExactly("\"boom\" ACTIVE boom.jar", "\"test.numbers\" ACTIVE numbers.jar", "null FAILED x.jar");
        assertThat(plugins.get(0).getString("error")).isEqualTo(
                "component boom.Boom failed to activate: java.lang.IllegalStateException: no licence");
        assertThat(plugins.get(0).getJsonArray("jobs")).isEmpty();
        assertThat(plugins.get(1).isNull("error")).isTrue();
        assertThat(plugins.get(1).getJsonArray("jobs").getValuesAs(JsonObject.class))
                .extracting(j -> j.getString("id") + " " + j.getString("name")).containsExactly(running.id() + " uses-numbers");
        JsonObject numbers = plugins.get(1).getJsonArray("types").getJsonObject(0);
        assertThat(numbers.getString("name")).isEqualTo("numbers");
        assertThat(numbers.getString("kind")).isEqualTo("source");
        assertThat(numbers.getJsonArray("settings").getValuesAs(JsonObject.class)).extracting(s -> s.getString("name"))
                .containsExactly("path", "limit", "keys");
        assertThat(plugins.get(0).getJsonArray("types").getJsonObject(0).getJsonArray("settings"))
                .as("boom-op is served by no factory of boom").isEmpty();
    }

    @Test
    void removeByBundleOrFileDeletesTheFileAndUnknownIs404(@org.junit.jupiter.api.io.TempDir Path dir) throws Exception {
        java.nio.file.Files.writeString(dir.resolve("numbers.jar"), "stand-in");
        PluginsResource resource = resource(dir);

        PluginViews.Removed removed = resource.remove("test.numbers");

        assertThat(removed).isEqualTo(new PluginViews.Removed("test.numbers", "2.0.0", "numbers.jar"));
        assertThat(dir.resolve("numbers.jar")).doesNotExist();
        assertThatThrownBy(() -> resource.remove("no.such.bundle"))
                .isInstanceOfSatisfying(PluginRequestException.class, e -> assertThat(e.status()).isEqualTo(404));
    }
}
