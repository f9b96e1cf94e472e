package io.weir.benchmarks.savepoint;

import io.weir.benchmarks.BenchmarkJob;
import jakarta.json.JsonObject;
import jakarta.json.spi.JsonProvider;

import java.nio.file.Path;

/**
 * Writes the job file (format: {@code docs/job-format.md}) of the savepoint benchmark: {@code source}
 * (datagen, unlimited rate, 100-byte records, p=2) → forward → {@code tap} ({@link KeyCountTapFactory},
 * p=2, chained into the source's task) → hash by {@code key} → {@code counter} (keyed-aggregate count) →
 * forward → {@code sink} ({@link FirstCountSinkFactory}, chained into the counter's task). The shape of the
 * {@code throughput-100k} checkpoint benchmark plus the tap. Exactly-once, no periodic checkpoints: the
 * savepoints are the only snapshots, so the tap's snapshots are the savepoints' cuts. Stateless.
 */
public final class SavepointJob {
    /** Subtasks of the source and of the tap; fixed, since a datagen source cannot change parallelism. */
    public static final int SOURCE_PARALLELISM = BenchmarkJob.PARALLELISM;

    private SavepointJob() {
    }

    /**
     * @param json the JSON-P provider
     * @param name the job's name (also its checkpoint subdirectory)
     * @param keys distinct keys of the source, >= 1
     * @param counterParallelism subtasks of the counter and the sink, >= 1
     * @param checkpointDir value of {@code execution.checkpointing.dir}
     * @return the job file as a JSON object
     */
    public static JsonObject build(JsonProvider json, String name, long keys, int counterParallelism, Path checkpointDir) {
        return json.createObjectBuilder()
                .add("name", name)
                .add("config", json.createObjectBuilder()
                        .add("execution.checkpointing.mode", "EXACTLY_ONCE")
                        .add("execution.checkpointing.dir", checkpointDir.toAbsolutePath().toString()))
                .add("operators", json.createArrayBuilder()
                        .add(json.createObjectBuilder()
                                .add("id", "source").add("type", "datagen").add("parallelism", SOURCE_PARALLELISM)
                                .add("config", json.createObjectBuilder()
                                        .add("rate", 0).add("record-size", 100).add("keys", keys)))
                        .add(json.createObjectBuilder()
                                .add("id", "tap").add("type", KeyCountTapFactory.TYPE).add("parallelism", SOURCE_PARALLELISM)
                                .add("inputs", json.createArrayBuilder().add(json.createObjectBuilder()
                                        .add("from", "source").add("partitioning", "forward"))))
                        .add(json.createObjectBuilder()
                                .add("id", "counter").add("type", "keyed-aggregate").add("parallelism", counterParallelism)
                                .add("inputs", json.createArrayBuilder().add(json.createObjectBuilder()
                                        .add("from", "tap").add("partitioning", "hash")
                                        .add("keys", json.createArrayBuilder().add("key"))))
                                .add("config", json.createObjectBuilder()
                                        .add("key", json.createArrayBuilder().add("key"))
                                        .add("aggregates", json.createArrayBuilder()
                                                .add(json.createObjectBuilder().add("fn", "count").add("as", "count")))))
                        .add(json.createObjectBuilder()
                                .add("id", "sink").add("type", FirstCountSinkFactory.TYPE).add("parallelism", counterParallelism)
                                .add("inputs", json.createArrayBuilder().add(json.createObjectBuilder()
                                        .add("from", "counter").add("partitioning", "forward")))))
                .build();
    }
}
