package io.weir.benchmarks.largestate;

import jakarta.json.JsonObject;
import jakarta.json.JsonObjectBuilder;
import jakarta.json.spi.JsonProvider;

import java.nio.file.Path;
import java.util.Map;

/**
 * Writes the job file of the large-state benchmark's {@code hourly} job: {@code examples/flight-delays-hourly.json}
 * (average delay per origin per event-time hour: {@code file} source, p=1, ISO-8601 {@code date}, 5 min
 * out-of-orderness → hash by {@code origin} → {@code window-aggregate} tumbling 1 h, p=2 → a harness sink,
 * forward, p=2) over a JSON-lines flights file, with the source held at a {@code release-file} so that the job
 * is still mid-stream when the harness cancels it. Stateless.
 */
final class HourlyJob {
    /** Job name; also names its checkpoint subdirectory. */
    static final String NAME = "large-state-hourly";

    private HourlyJob() {
    }

    /**
     * @param json builds the document
     * @param flights the decompressed JSON-lines flights file (absolute)
     * @param releaseFile the source's {@code release-file} (absolute)
     * @param checkpointDir value of {@code execution.checkpointing.dir}
     * @param checkpointIntervalMs checkpoint trigger period, ms
     * @param backend job configuration of the state backend (e.g. {@code state.backend.type=rocksdb})
     * @param sinkType the harness sink's plugin type (any schema, no config)
     * @return the job file
     */
    static JsonObject build(JsonProvider json, Path flights, Path releaseFile, Path checkpointDir,
            long checkpointIntervalMs, Map<String, String> backend, String sinkType) {
        JsonObjectBuilder config = json.createObjectBuilder()
                .add("execution.checkpointing.interval", checkpointIntervalMs + " ms")
                .add("execution.checkpointing.mode", "EXACTLY_ONCE")
                .add("execution.checkpointing.dir", checkpointDir.toAbsolutePath().toString());
        backend.forEach(config::add);
        JsonObject schema = json.createObjectBuilder()
                .add("date", "string").add("delay", "long").add("distance", "long")
                .add("origin", "string").add("destination", "string").build();
        return json.createObjectBuilder()
                .add("name", NAME)
                .add("config", config)
                .add("operators", json.createArrayBuilder()
                        .add(json.createObjectBuilder()
                                .add("id", "flights").add("type", "file").add("parallelism", 1)
                                .add("config", json.createObjectBuilder()
                                        .add("path", flights.toAbsolutePath().toString())
                                        .add("schema", schema)
                                        .add("release-file", releaseFile.toAbsolutePath().toString())
                                        .add("timestamp-field", "date")
                                        .add("watermark.max-out-of-orderness", "5 min")))
                        .add(json.createObjectBuilder()
                                .add("id", "hourly").add("type", "window-aggregate").add("parallelism", 2)
                                .add("inputs", json.createArrayBuilder().add(json.createObjectBuilder()
                                        .add("from", "flights").add("partitioning", "hash")
                                        .add("keys", json.createArrayBuilder().add("origin"))))
                                .add("config", json.createObjectBuilder()
                                        .add("key", json.createArrayBuilder().add("origin"))
                                        .add("timestamp-field", "date")
                                        .add("window", "tumbling")
                                        .add("size", "1 h")
                                        .add("aggregates", json.createArrayBuilder()
                                                .add(json.createObjectBuilder().add("fn", "count").add("as", "flights"))
                                                .add(json.createObjectBuilder().add("fn", "avg").add("field", "delay")
                                                        .add("as", "avg_delay")))))
                        .add(json.createObjectBuilder()
                                .add("id", "out").add("type", sinkType).add("parallelism", 2)
                                .add("inputs", json.createArrayBuilder().add(json.createObjectBuilder()
                                        .add("from", "hourly").add("partitioning", "forward")))))
                .build();
    }
}
