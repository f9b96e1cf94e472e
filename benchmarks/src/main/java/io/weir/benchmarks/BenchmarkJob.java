package io.weir.benchmarks;

import jakarta.json.JsonArrayBuilder;
import jakarta.json.JsonObject;
import jakarta.json.JsonObjectBuilder;
import jakarta.json.spi.JsonProvider;

import java.nio.file.Path;

/**
 * Writes the job file (format: {@code docs/job-format.md}) of a {@link Variant}: {@code source}
 * (datagen, p=2) → hash by {@code key} → {@code counter} (keyed-aggregate count, p=2) → {@code sink}
 * ({@link CountingSinkFactory#TYPE} unless the caller names another, forward, p=2, chained into the counter's task). Aligned
 * exactly-once checkpoints unless {@code --set} overrides say otherwise. Stateless.
 */
public final class BenchmarkJob {
    /** Id of the source operator. */
    public static final String SOURCE_ID = "source";
    /** Id of the counting operator, head of its task's chain: the task whose subtasks the benchmark reports. */
    public static final String COUNTER_ID = "counter";
    /** Id of the counting sink. */
    public static final String SINK_ID = "sink";
    /** Subtasks of every operator. */
    public static final int PARALLELISM = 2;

    private BenchmarkJob() {
    }

    /** @return the job's name: {@code benchmark-<variant>}, which also names its checkpoint subdirectory */
    public static String jobName(Variant variant) {
        return "benchmark-" + variant.name();
    }

    /**
     * @param json the JSON-P provider that builds the document
     * @param variant what to run
     * @param checkpointDir value of {@code execution.checkpointing.dir}
     * @return the job file as a JSON object
     */
    public static JsonObject build(JsonProvider json, Variant variant, Path checkpointDir) {
        return build(json, variant, checkpointDir, CountingSinkFactory.TYPE);
    }

    /**
     * @param json the JSON-P provider that builds the document
     * @param variant what to run
     * @param checkpointDir value of {@code execution.checkpointing.dir}
     * @param sinkType the sink's plugin type, registered by the harness (any schema, no config)
     * @return the job file as a JSON object
     */
    public static JsonObject build(JsonProvider json, Variant variant, Path checkpointDir, String sinkType) {
        JsonObjectBuilder configBuilder = json.createObjectBuilder()
                .add("execution.checkpointing.interval", variant.checkpointIntervalMs() + " ms")
                .add("execution.checkpointing.mode", "EXACTLY_ONCE")
                .add("execution.checkpointing.dir", checkpointDir.toAbsolutePath().toString());
        variant.config().forEach(configBuilder::add);
        JsonObject config = configBuilder.build();

        JsonObjectBuilder sourceConfig = json.createObjectBuilder()
                .add("record-size", variant.recordSizeBytes())
                .add("keys", variant.keys());
        if (variant.rate() == Math.rint(variant.rate())) {
            sourceConfig.add("rate", (long) variant.rate());
        } else {
            sourceConfig.add("rate", variant.rate());
        }

        JsonObjectBuilder counterConfig = json.createObjectBuilder()
                .add("key", json.createArrayBuilder().add("key"))
                .add("aggregates", json.createArrayBuilder()
                        .add(json.createObjectBuilder().add("fn", "count").add("as", "count")));
        if (variant.sleepMsPerRecord() > 0) {
            counterConfig.add("sleep-ms-per-record", variant.sleepMsPerRecord());
        }

        JsonArrayBuilder operators = json.createArrayBuilder()
                .add(json.createObjectBuilder()
                        .add("id", SOURCE_ID).add("type", "datagen").add("parallelism", PARALLELISM)
                        .add("config", sourceConfig))
                .add(json.createObjectBuilder()
                        .add("id", COUNTER_ID).add("type", "keyed-aggregate").add("parallelism", PARALLELISM)
                        .add("inputs", json.createArrayBuilder().add(json.createObjectBuilder()
                                .add("from", SOURCE_ID).add("partitioning", "hash")
                                .add("keys", json.createArrayBuilder().add("key"))))
                        .add("config", counterConfig))
                .add(json.createObjectBuilder()
                        .add("id", SINK_ID).add("type", sinkType).add("parallelism", PARALLELISM)
                        .add("inputs", json.createArrayBuilder().add(json.createObjectBuilder()
                                .add("from", COUNTER_ID).add("partitioning", "forward"))));

        return json.createObjectBuilder()
                .add("name", jobName(variant))
                .add("config", config)
                .add("operators", operators)
                .build();
    }
}
