package io.weir.rest.resource;

import io.weir.rest.node.NodeJobs;
import io.weir.rest.node.PluginWait;
import io.weir.rest.node.TestEngine;
import io.weir.rest.node.TestPlugins;
import jakarta.json.JsonObject;
import jakarta.json.spi.JsonProvider;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** The REST contract of {@code /overview}, {@code /config} and {@code /plugins}. */
class NodeResourceTest {
    private final TestEngine engine = new TestEngine();
    private final NodeJobs jobs = new NodeJobs(engine, TestPlugins.registry(), JsonProvider.provider(), PluginWait.NONE, () -> 0L);
    private final NodeResource resource = new NodeResource(jobs, TestPlugins.registry(), f -> "test-bundle",
            "1.2.3", () -> 0L);

    @Test
    void overviewCountsJobsByStateWithFlinksFieldNames() {
        jobs.submit(TestPlugins.job("running", 1), Path.of("/"), Map.of());
        jobs.submit(TestPlugins.job("done", 1), Path.of("/"), Map.of());
        jobs.submit(TestPlugins.job("cancelled", 1), Path.of("/"), Map.of());
        jobs.submit(TestPlugins.job("failed", 1), Path.of("/"), Map.of());
        engine.finish("done");
        jobs.cancel("cancelled");
        engine.fail("failed", new RuntimeException("x"), 0);

        JsonObject json = JsonContract.json(resource.overview());

        assertThat(json.getInt("taskmanagers")).isEqualTo(1);
        assertThat(json.getInt("jobs-running")).isEqualTo(1);
        assertThat(json.getInt("jobs-finished")).isEqualTo(1);
        assertThat(json.getInt("jobs-cancelled")).isEqualTo(1);
        assertThat(json.getInt("jobs-failed")).isEqualTo(1);
        assertThat(json.getString("weir-version")).isEqualTo("1.2.3");
    }

    @Test
    void configHasRefreshIntervalTimeZoneAndFeatures() {
        JsonObject json = JsonContract.json(resource.config());

        assertThat(json.getInt("refresh-interval")).isEqualTo(3000);
        assertThat(json).containsKeys("timezone-name", "timezone-offset");
        assertThat(json.getJsonObject("features").getBoolean("web-submit")).isTrue();
        assertThat(json.getJsonObject("features").getBoolean("web-cancel")).isTrue();
    }

    @Test
    void pluginsListEachTypeWithItsKind() {
        JsonObject json = JsonContract.json(resource.plugins());

        assertThat(json.getJsonArray("plugins").getValuesAs(JsonObject.class))
                .extracting(p -> p.getString("type") + ":" + p.getString("kind"))
                .containsExactly("discard:sink", "numbers:source");
    }

    @Test
    void pluginsCarryBundleAndEachSettingWithTypeDefaultRequiredAndDescription() {
        JsonObject json = JsonContract.json(resource.plugins());

        JsonObject numbers = json.getJsonArray("plugins").getJsonObject(1);
        assertThat(numbers.getString("bundle")).isEqualTo("test-bundle");
        assertThat(numbers.getJsonArray("settings").getValuesAs(JsonObject.class)).extracting(JsonObject::toString).containsExactly(
                "{\"default\":null,\"description\":\"the file\",\"name\":\"path\",\"required\":true,\"type\":\"string\"}",
                "{\"default\":null,\"description\":\"records, then end\",\"name\":\"limit\",\"required\":false,\"type\":\"long\"}",
                "{\"default\":\"16\",\"description\":\"distinct keys\",\"name\":\"keys\",\"required\":false,\"type\":\"long\"}");
        assertThat(json.getJsonArray("plugins").getJsonObject(0).getJsonArray("settings")).as("discard describes none").isEmpty();
    }
}
