package io.weir.benchmarks;

import io.weir.core.job.JobGraph;
import io.weir.core.job.JobSpecParser;
import io.weir.core.plugin.MapPluginRegistry;
import jakarta.json.spi.JsonProvider;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** Parses (never runs) every variant's job against the real plugins. */
class BenchmarkJobTest {
    @Test
    void everyVariantParsesIntoSourceCounterSinkWithParallelismTwo() throws Exception {
        MapPluginRegistry plugins = MapPluginRegistry.fromServiceLoader(getClass().getClassLoader());
        plugins.addSink(new CountingSinkFactory(new RowCounter()));
        JsonProvider json = JsonProvider.provider();

        for (Variant v : Variant.ALL) {
            JobGraph job = new JobSpecParser(plugins, json)
                    .parse(BenchmarkJob.build(json, v, Path.of("/tmp/cp")).toString(), Path.of("."), Map.of());

            assertThat(job.name()).isEqualTo("benchmark-" + v.name());
            assertThat(job.vertices()).extracting(x -> x.id())
                    .containsExactly(BenchmarkJob.SOURCE_ID, BenchmarkJob.COUNTER_ID, BenchmarkJob.SINK_ID);
            assertThat(job.vertices()).allSatisfy(x -> assertThat(x.parallelism()).isEqualTo(2));
        }
    }
}
