package io.weir.distribution;

import io.weir.kafka.testkit.KafkaTestBroker;
import jakarta.json.Json;
import jakarta.json.JsonObject;
import jakarta.json.JsonReader;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.LongStream;

import static io.weir.distribution.WeirProcesses.describe;
import static io.weir.distribution.WeirProcesses.killWithDescendants;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.offset;
import static org.awaitility.Awaitility.await;

/**
 * The Kafka plugins inside the real distribution (Felix, FileInstall, the bundles' embedded
 * kafka-clients): {@code bin/weir run} of Kafka → keyed aggregate → {@code kafka-2pc}, killed with
 * SIGKILL after the final checkpoint's pre-commit and before its commit (held there by
 * {@code debug.inject-delay.final-checkpoint-notify}), then run again: the second run resumes the
 * recorded transactions and commits them, and a {@code read_committed} consumer sees every
 * per-origin update exactly once. The expected output is computed here from the generated flights.
 */
class KafkaExactlyOnceIT {
    private static final Path HOME = Path.of(System.getProperty("weir.home", "target/weir")).toAbsolutePath();
    private static final Path WEIR = HOME.resolve("bin/weir");
    private static final String JOB = "kafka-kill";
    private static final int RECORDS = 5_000;

    @TempDir
    Path work;
    private KafkaTestBroker broker;

    @AfterEach
    void stopBroker() {
        if (broker != null) {
            broker.close();
        }
    }

    @Test
    void killBetweenPreCommitAndCommitThenRerunCommitsExactlyOnce() throws Exception {
        broker = KafkaTestBroker.start(work.resolve("broker"), Map.of());
        broker.createTopics(3, "flights");
        broker.createTopics(2, "per-origin");
        Path flights = work.resolve("flights.jsonl");
        Map<String, ProcessKillResumeIT.Truth> truth = ProcessKillResumeIT.writeFlights(flights, RECORDS);
        List<String> lines = Files.readAllLines(flights, StandardCharsets.UTF_8);
        for (int p = 0; p < 3; p++) {
            final int partition = p;
            broker.produce("flights", p, LongStream.range(0, lines.size()).filter(i -> i % 3 == partition)
                    .mapToObj(i -> lines.get((int) i)).toList());
        }
        Path job = writeJob(work.resolve("checkpoints"));

        Path stdout = work.resolve("first-stdout.txt");
        Path stderr = work.resolve("first-stderr.txt");
        Process first = start(job, stdout, stderr, "--set", "debug.inject-delay.final-checkpoint-notify=10 min");
        try {
            await("the final checkpoint completed, its notification held").atMost(Duration.ofSeconds(120))
                    .pollInterval(Duration.ofMillis(20))
                    .until(() -> !first.isAlive() || Files.readString(stderr, StandardCharsets.UTF_8).contains("Notifying the tasks of final checkpoint"));
            assertThat(first.isAlive()).as("first run ended before its kill: %s", describe(first, stdout, stderr)).isTrue();
        } finally {
            killWithDescendants(first);
        }
        List<JsonObject> beforeRerun = committed();
        long expectedUpdates = truth.values().stream().mapToLong(ProcessKillResumeIT.Truth::count).sum();
        assertThat((long) beforeRerun.size()).as("the final checkpoint's transactions are not committed yet").isLessThan(expectedUpdates);

        Path out2 = work.resolve("second-stdout.txt");
        Path err2 = work.resolve("second-stderr.txt");
        Process second = start(job, out2, err2);
        if (!second.waitFor(120, TimeUnit.SECONDS)) {
            killWithDescendants(second);
            throw new AssertionError("second run did not end within 120 s: " + describe(second, out2, err2));
        }
        String out = Files.readString(out2, StandardCharsets.UTF_8);
        assertThat(second.exitValue()).as(describe(second, out2, err2)).isZero();
        assertThat(out).contains("Restoring job " + JOB + " from checkpoint").containsPattern("Job " + JOB + " FINISHED after \\d+ ms");

        // commit markers reach the partitions after the commit returns: the read_committed view may lag a moment
        await("every update committed exactly once").atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(500))
                .untilAsserted(() -> {
                    Map<String, List<JsonObject>> byOrigin = committed().stream()
                            .collect(Collectors.groupingBy(r -> r.getString("origin"), TreeMap::new, Collectors.toList()));
                    assertThat(byOrigin.keySet()).isEqualTo(truth.keySet());
                    for (Map.Entry<String, ProcessKillResumeIT.Truth> e : truth.entrySet()) {
                        ProcessKillResumeIT.Truth t = e.getValue();
                        List<Long> counts = byOrigin.get(e.getKey()).stream().map(r -> r.getJsonNumber("flights").longValueExact()).sorted().toList();
                        assertThat(counts).as("'flights' updates of origin %s (1..%d, each once)", e.getKey(), t.count())
                                .containsExactlyElementsOf(LongStream.rangeClosed(1, t.count()).boxed().toList());
                        JsonObject last = byOrigin.get(e.getKey()).stream().filter(r -> r.getJsonNumber("flights").longValueExact() == t.count())
                                .findFirst().orElseThrow();
                        assertThat(last.getJsonNumber("avg_delay").doubleValue()).isCloseTo((double) t.delaySum() / t.count(), offset(1e-9));
                    }
                });
    }

    private List<JsonObject> committed() {
        List<JsonObject> rows = new ArrayList<>();
        for (String v : broker.readAll("per-origin", true)) {
            try (JsonReader r = Json.createReader(new StringReader(v))) {
                rows.add(r.readObject());
            }
        }
        return rows;
    }

    private Path writeJob(Path checkpoints) throws Exception {
        JsonObject job = Json.createObjectBuilder()
                .add("name", JOB)
                .add("config", Json.createObjectBuilder()
                        .add("execution.checkpointing.interval", "200 ms")
                        .add("execution.checkpointing.dir", checkpoints.toString()))
                .add("operators", Json.createArrayBuilder()
                        .add(Json.createObjectBuilder().add("id", "flights").add("type", "kafka").add("parallelism", 1)
                                .add("config", Json.createObjectBuilder().add("bootstrap-servers", broker.bootstrapServers())
                                        .add("topics", Json.createArrayBuilder().add("flights")).add("bounded", true)
                                        .add("schema", Json.createObjectBuilder().add("date", "string").add("delay", "long")
                                                .add("distance", "long").add("origin", "string").add("destination", "string"))))
                        .add(Json.createObjectBuilder().add("id", "per-origin").add("type", "keyed-aggregate").add("parallelism", 2)
                                .add("inputs", Json.createArrayBuilder().add(Json.createObjectBuilder().add("from", "flights")
                                        .add("partitioning", "hash").add("keys", Json.createArrayBuilder().add("origin"))))
                                .add("config", Json.createObjectBuilder()
                                        .add("key", Json.createArrayBuilder().add("origin"))
                                        .add("aggregates", Json.createArrayBuilder()
                                                .add(Json.createObjectBuilder().add("fn", "count").add("as", "flights"))
                                                .add(Json.createObjectBuilder().add("fn", "avg").add("field", "delay").add("as", "avg_delay")))))
                        .add(Json.createObjectBuilder().add("id", "out").add("type", "kafka-2pc").add("parallelism", 2)
                                .add("inputs", Json.createArrayBuilder().add("per-origin"))
                                .add("config", Json.createObjectBuilder().add("bootstrap-servers", broker.bootstrapServers())
                                        .add("topic", "per-origin").add("key-field", "origin"))))
                .build();
        Path file = work.resolve(JOB + ".json");
        Files.writeString(file, job.toString(), StandardCharsets.UTF_8);
        return file;
    }

    private Process start(Path job, Path stdout, Path stderr, String... options) throws Exception {
        List<String> command = new ArrayList<>(List.of(WEIR.toString(), "run", job.toString()));
        command.addAll(List.of(options));
        Process p = new ProcessBuilder(command).directory(work.toFile())
                .redirectOutput(stdout.toFile()).redirectError(stderr.toFile()).redirectInput(ProcessBuilder.Redirect.PIPE).start();
        p.getOutputStream().close();
        return p;
    }
}
