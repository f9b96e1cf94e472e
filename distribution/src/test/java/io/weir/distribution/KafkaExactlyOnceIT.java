package io.weir.distribution;

import io.weir.kafka.testkit.KafkaTestBroker;
import jakarta.json.Json;
import jakarta.json.JsonObject;
import jakarta.json.JsonReader;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
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
 * SIGKILL after a checkpoint's pre-commit and before its commit, then run again: the second run resumes
 * the recorded transactions and commits them, and a {@code read_committed} consumer sees every
 * per-origin update exactly once. Killed at the final checkpoint (held by the engine's
 * {@code debug.inject-delay.final-checkpoint-notify}) and at the first checkpoint mid-run (held by the
 * sink's {@code debug.inject-delay.before-commit}). The expected output is computed here from the
 * generated flights. Also killed mid-run and rerun with other parallelisms of the source (3 → 2 subtasks over 3
 * partitions), the aggregate and the sink (2 → 1). One broker for the class.
 */
class KafkaExactlyOnceIT {
    private static final Path HOME = Path.of(System.getProperty("weir.home", "target/weir")).toAbsolutePath();
    private static final Path WEIR = HOME.resolve("bin/weir");
    private static final String JOB = "kafka-kill";
    private static final int RECORDS = 5_000;

    @TempDir
    static Path brokerDir;
    static KafkaTestBroker broker;
    @TempDir
    Path work;
    /** The topics of the running test. */
    private String in;
    private String out;

    @BeforeAll
    static void startBroker() throws Exception {
        broker = KafkaTestBroker.start(brokerDir, Map.of());
    }

    @AfterAll
    static void stopBroker() {
        if (broker != null) {
            broker.close();
        }
    }

    @Test
    void killBetweenPreCommitAndCommitThenRerunCommitsExactlyOnce() throws Exception {
        Map<String, ProcessKillResumeIT.Truth> truth = loadFlights("final");
        Path job = writeJob(work.resolve("checkpoints"), 0, 0);

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
        rerunAndAssertExactlyOnce(job, truth);
    }

    @Test
    void killAfterAMidRunPreCommitThenRerunCommitsExactlyOnce() throws Exception {
        Map<String, ProcessKillResumeIT.Truth> truth = loadFlights("midrun");
        // 1 ms per record in the aggregate: about 2.5 s per subtask, so the first checkpoint (200 ms) is mid-run
        killWhileAMidRunCommitIsHeld(truth);
        rerunAndAssertExactlyOnce(writeJob(work.resolve("checkpoints"), 0, 0), truth);
    }

    @Test
    void killMidRunThenRestoreWithOtherParallelismsIsExactlyOnce() throws Exception {
        // source 3 subtasks (one partition each), aggregate 2, sink 2; killed with SIGKILL while the sinks hold the commit
        // of the first mid-run checkpoint (every 200 ms; the aggregate takes 1 ms per record, so the job runs ~2.5 s);
        // rerun from that checkpoint with source 2 (the 3 partition positions dealt 2 + 1) and aggregate and sink 1 (chained
        // by their forward edge; the one sink subtask commits the transactions both old ones recorded)
        Map<String, ProcessKillResumeIT.Truth> truth = loadFlights("rescale");
        killWhileAMidRunCommitIsHeld(truth, "--set", "execution.checkpointing.interval=200 ms",
                "--set", "pipeline.jobvertex-parallelism-overrides=flights:3,per-origin:2,out:2");
        rerunAndAssertExactlyOnce(writeJob(work.resolve("checkpoints"), 0, 0), truth,
                "--set", "pipeline.jobvertex-parallelism-overrides=flights:2,per-origin:1,out:1");
    }

    /**
     * Runs the job (the aggregate 1 ms per record, the sinks holding their first commit of a pre-committed transaction
     * for 10 min) until a sink holds, kills {@code bin/weir} with SIGKILL there, and checks that not every update is
     * committed yet (killed mid-run).
     */
    private void killWhileAMidRunCommitIsHeld(Map<String, ProcessKillResumeIT.Truth> truth, String... options) throws Exception {
        Path held = writeJob(work.resolve("checkpoints"), 1, 600_000);
        Path stdout = work.resolve("first-stdout.txt");
        Path stderr = work.resolve("first-stderr.txt");
        Process first = start(held, stdout, stderr, options);
        try {
            await("a mid-run checkpoint pre-committed, its commit held").atMost(Duration.ofSeconds(120))
                    .pollInterval(Duration.ofMillis(20))
                    .until(() -> !first.isAlive() || Files.readString(stderr, StandardCharsets.UTF_8).contains("(debug.inject-delay.before-commit)"));
            assertThat(first.isAlive()).as("first run ended before its kill: %s", describe(first, stdout, stderr)).isTrue();
            assertThat(Files.readString(stderr, StandardCharsets.UTF_8)).as("killed mid-run, not at the final checkpoint")
                    .doesNotContain("final checkpoint");
        } finally {
            killWithDescendants(first);
        }
        long expectedUpdates = truth.values().stream().mapToLong(ProcessKillResumeIT.Truth::count).sum();
        assertThat((long) committed().size()).as("killed mid-run").isLessThan(expectedUpdates);
    }

    /** Creates this test's topics and loads {@value #RECORDS} flights over 3 partitions; @return the expected totals */
    private Map<String, ProcessKillResumeIT.Truth> loadFlights(String test) throws Exception {
        in = "flights-" + test;
        out = "per-origin-" + test;
        broker.createTopics(3, in);
        broker.createTopics(2, out);
        Path flights = work.resolve("flights.jsonl");
        Map<String, ProcessKillResumeIT.Truth> truth = ProcessKillResumeIT.writeFlights(flights, RECORDS);
        List<String> lines = Files.readAllLines(flights, StandardCharsets.UTF_8);
        for (int p = 0; p < 3; p++) {
            final int partition = p;
            broker.produce(in, p, LongStream.range(0, lines.size()).filter(i -> i % 3 == partition)
                    .mapToObj(i -> lines.get((int) i)).toList());
        }
        return truth;
    }

    /** Runs the job again to its end and checks that every per-origin update is committed exactly once. */
    private void rerunAndAssertExactlyOnce(Path job, Map<String, ProcessKillResumeIT.Truth> truth, String... options) throws Exception {
        Path out2 = work.resolve("second-stdout.txt");
        Path err2 = work.resolve("second-stderr.txt");
        Process second = start(job, out2, err2, options);
        if (!second.waitFor(120, TimeUnit.SECONDS)) {
            killWithDescendants(second);
            throw new AssertionError("second run did not end within 120 s: " + describe(second, out2, err2));
        }
        String printed = Files.readString(out2, StandardCharsets.UTF_8);
        assertThat(second.exitValue()).as(describe(second, out2, err2)).isZero();
        assertThat(printed).contains("Restoring job " + JOB + " from checkpoint").containsPattern("Job " + JOB + " FINISHED after \\d+ ms");

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
        for (String v : broker.readAll(out, true)) {
            try (JsonReader r = Json.createReader(new StringReader(v))) {
                rows.add(r.readObject());
            }
        }
        return rows;
    }

    /**
     * @param sleepMsPerRecord the aggregate's {@code sleep-ms-per-record}
     * @param holdBeforeCommitMs the sink's {@code debug.inject-delay.before-commit}, 0 for none
     */
    private Path writeJob(Path checkpoints, int sleepMsPerRecord, long holdBeforeCommitMs) throws Exception {
        JsonObject job = Json.createObjectBuilder()
                .add("name", JOB)
                .add("config", Json.createObjectBuilder()
                        // no periodic checkpoint completes before the bounded input ends: every update is in the
                        // final checkpoint's transactions, which the kill leaves pre-committed but not committed
                        .add("execution.checkpointing.interval", "10 min")
                        .add("execution.checkpointing.dir", checkpoints.toString()))
                .add("operators", Json.createArrayBuilder()
                        .add(Json.createObjectBuilder().add("id", "flights").add("type", "kafka").add("parallelism", 1)
                                .add("config", Json.createObjectBuilder().add("bootstrap-servers", broker.bootstrapServers())
                                        .add("topics", Json.createArrayBuilder().add(in)).add("bounded", true)
                                        .add("schema", Json.createObjectBuilder().add("date", "string").add("delay", "long")
                                                .add("distance", "long").add("origin", "string").add("destination", "string"))))
                        .add(Json.createObjectBuilder().add("id", "per-origin").add("type", "keyed-aggregate").add("parallelism", 2)
                                .add("inputs", Json.createArrayBuilder().add(Json.createObjectBuilder().add("from", "flights")
                                        .add("partitioning", "hash").add("keys", Json.createArrayBuilder().add("origin"))))
                                .add("config", Json.createObjectBuilder()
                                        .add("key", Json.createArrayBuilder().add("origin"))
                                        .add("sleep-ms-per-record", sleepMsPerRecord)
                                        .add("aggregates", Json.createArrayBuilder()
                                                .add(Json.createObjectBuilder().add("fn", "count").add("as", "flights"))
                                                .add(Json.createObjectBuilder().add("fn", "avg").add("field", "delay").add("as", "avg_delay")))))
                        .add(Json.createObjectBuilder().add("id", "out").add("type", "kafka-2pc").add("parallelism", 2)
                                .add("inputs", Json.createArrayBuilder().add("per-origin"))
                                .add("config", Json.createObjectBuilder().add("bootstrap-servers", broker.bootstrapServers())
                                        .add("topic", out).add("key-field", "origin")
                                        .add("debug.inject-delay.before-commit", holdBeforeCommitMs))))
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
