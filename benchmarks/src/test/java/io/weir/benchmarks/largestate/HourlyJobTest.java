package io.weir.benchmarks.largestate;

import io.weir.benchmarks.RowObserverSinkFactory;
import io.weir.core.job.JobGraph;
import io.weir.core.job.JobSpecParser;
import io.weir.core.plugin.MapPluginRegistry;
import jakarta.json.spi.JsonProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;

import java.nio.file.Path;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** Parses (never runs) the large-state benchmark's hourly job against the real plugins, on both backends. */
class HourlyJobTest {
    @Test
    void hourlyJobParsesIntoFileWindowSinkOnEitherBackend(@TempDir Path dir) throws Exception {
        Path flights = Files.writeString(dir.resolve("flights.jsonl"),
                "{\"date\":\"2001-01-01T00:01:00.000Z\",\"delay\":33,\"distance\":2176,\"origin\":\"LAS\",\"destination\":\"PHL\"}\n");
        MapPluginRegistry plugins = MapPluginRegistry.fromServiceLoader(getClass().getClassLoader());
        plugins.addSink(new RowObserverSinkFactory("observer", () -> () -> { }));
        JsonProvider json = JsonProvider.provider();

        for (Map<String, String> backend : java.util.List.of(
                Map.of("state.backend.type", "rocksdb", "state.backend.incremental", "true"),
                Map.of("state.backend.type", "hashmap"))) {
            String file = HourlyJob.build(json, flights, dir.resolve("release"), dir.resolve("cp"),
                    2000, backend, "observer").toString();
            JobGraph job = new JobSpecParser(plugins, json).parse(file, Path.of("."), Map.of());

            assertThat(job.name()).isEqualTo("large-state-hourly");
            assertThat(job.vertices()).extracting(v -> v.id()).containsExactly("flights", "hourly", "out");
            assertThat(job.vertices()).extracting(v -> v.parallelism()).containsExactly(1, 2, 2);
        }
    }
}
