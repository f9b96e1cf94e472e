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

/** The REST contract of {@code /overview} and {@code /config}. */
class NodeResourceTest {
    private final TestEngine engine = new TestEngine();
    private final NodeJobs jobs = new NodeJobs(engine, TestPlugins.registry(), JsonProvider.provider(), PluginWait.NONE, () -> 0L);
    private final NodeResource resource = new NodeResource(jobs, "1.2.3", () -> 0L);

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
}
