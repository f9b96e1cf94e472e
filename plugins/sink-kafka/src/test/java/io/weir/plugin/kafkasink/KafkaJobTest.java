package io.weir.plugin.kafkasink;

import io.weir.core.config.Configuration;
import io.weir.core.coordination.CompletedCheckpointStats;
import io.weir.core.engine.JobHandle;
import io.weir.core.engine.JobListener;
import io.weir.core.engine.JobResult;
import io.weir.core.engine.JobStatus;
import io.weir.core.job.JobGraph;
import io.weir.core.job.JobSpecParser;
import io.weir.kafka.testkit.KafkaTestBroker;
import io.weir.runtime.engine.LocalEngine;
import jakarta.json.Json;
import jakarta.json.JsonObject;
import jakarta.json.JsonReader;
import jakarta.json.spi.JsonProvider;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.StringReader;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import java.util.stream.LongStream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.offset;
import static org.awaitility.Awaitility.await;

/**
 * Whole jobs, Kafka topic → per-origin count and average (keyed aggregate) → {@code kafka-2pc}, on the
 * in-process engine against a real broker (one for the class), through failures: an injected task
 * failure with two concurrent checkpoints, a restore with other parallelisms, and a broker restart
 * mid-run. A {@code read_committed} consumer must see every per-origin update exactly once; the
 * expected updates are computed here from the generated flights.
 */
class KafkaJobTest {
    private static final int ORIGINS = 20;

    @TempDir
    static Path brokerDir;
    static KafkaTestBroker broker;
    @TempDir
    Path tmp;
    private LocalEngine engine;

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

    @BeforeEach
    void startEngine() {
        engine = LocalEngine.fromServiceLoader(getClass().getClassLoader(), Configuration.empty());
    }

    @AfterEach
    void stopEngine() {
        engine.close();
    }

    /** Per origin: number of flights and sum of delays. */
    record Truth(long count, long delaySum) {
    }

    @Test
    void cleanRunIsExactlyOnceAndReportsCheckpointDurations() throws Exception {
        Map<String, Truth> truth = loadFlights("in-clean", 2, 2000, 4);
        broker.createTopics(2, "out-clean");
        Recorder rec = new Recorder();
        // 2 ms per record in the aggregate: about 2 s per subtask, so several checkpoints complete mid-run
        JobResult r = run(job("clean", "in-clean", "out-clean", 2, 2, 2), Map.of("execution.checkpointing.interval", "100 ms"), rec);
        assertThat(r.status()).as("%s", r.failure()).isEqualTo(JobStatus.FINISHED);
        assertExactlyOnce("out-clean", truth);
        List<Long> durations = rec.durations.stream().sorted().toList();
        System.out.printf("{\"test\": \"kafka-job-checkpoints\", \"completed\": %d, \"p50_ms\": %d, \"max_ms\": %d}%n",
                durations.size(), durations.get(durations.size() / 2), durations.get(durations.size() - 1));
    }

    @Test
    void injectedFailureWithConcurrentCheckpointsIsExactlyOnce() throws Exception {
        // Gated, not paced: the job is unbounded and its input comes in three parts. The second is written only after two
        // checkpoints completed, so sink subtask 0 (about 2000 records of the first part, 800 needed) has its records and
        // its checkpoints and fails at one of the second part's records, whatever the machine's speed (a bounded input
        // could be used up before the second checkpoint, and the failure would never fire: 2 of 5 runs at load 21). The
        // third part is written after the restart, so the restored job also reads input that came after the failure.
        Map<String, Truth> truth = loadFlights("in-fail", 3, 4000, 1);
        broker.createTopics(2, "out-fail");
        Recorder rec = new Recorder();
        JobHandle handle = engine.submit(parse(unbounded(job("fail", "in-fail", "out-fail", 2, 2, 1)), Map.of(
                "execution.checkpointing.interval", "20 ms",
                "execution.checkpointing.max-concurrent-checkpoints", "2",
                "debug.inject-failure.operator", "out",
                "debug.inject-failure.after-records", "800",
                "debug.inject-failure.after-checkpoints", "2")), rec);
        try {
            await("two completed checkpoints").atMost(Duration.ofSeconds(120)).until(() -> rec.completed.get() >= 2);
            appendFlights("in-fail", 3, 4000, 11, truth);
            await("the injected failure and the restart").atMost(Duration.ofSeconds(120))
                    .until(() -> rec.restarts.get() >= 1 || handle.result().isDone());
            assertThat(handle.result().isDone()).as("the job ended instead of restarting: %s", handle.result()).isFalse();
            appendFlights("in-fail", 3, 1000, 111, truth);
            awaitEveryUpdateCommitted(handle, "out-fail", truth, Duration.ofSeconds(180));
        } finally {
            handle.cancel();
        }
        JobResult r = handle.result().get(60, TimeUnit.SECONDS);
        assertThat(r.restarts()).as("%s", r.failure()).isEqualTo(1);
        assertThat(rec.restartCauses).singleElement().asString().contains("injected failure");
        assertExactlyOnce("out-fail", truth);
    }

    @Test
    void partitionsAddedWhileRunningAndWhileDownAreReadOnceAcrossARescaledRestore() throws Exception {
        // 2 partitions at source parallelism 2; 2 more added while the job runs (found by discovery, from offset 0); the
        // job suspended; 2 more added while it is down; restored at source parallelism 3: the checkpoint's 4 positions are
        // dealt over 3 subtasks and the 2 partitions it does not cover are read from offset 0 by the subtask they belong to
        Map<String, Truth> truth = loadFlights("in-grow", 2, 1000, 7);
        broker.createTopics(2, "out-grow");
        String atTwo = unbounded(job("grow", "in-grow", "out-grow", 2, 2, 2, 0))
                .replace("\"bounded\": false", "\"bounded\": false, \"partition-discovery-interval-ms\": 100");
        Recorder rec = new Recorder();
        JobHandle first = engine.submit(parse(atTwo, Map.of("execution.checkpointing.interval", "30 ms")), rec);
        try {
            await("a completed checkpoint").atMost(Duration.ofSeconds(60)).until(() -> rec.completed.get() >= 1);
            addPartitions("in-grow", 4);
            appendFlights("in-grow", 4, 1000, 77, truth);
            awaitEveryUpdateCommitted(first, "out-grow", truth, Duration.ofSeconds(120));
        } finally {
            first.suspend();
        }
        JobResult suspended = first.result().get(60, TimeUnit.SECONDS);
        assertThat(suspended.status()).as("%s", suspended.failure()).isEqualTo(JobStatus.SUSPENDED);
        addPartitions("in-grow", 6);
        appendFlights("in-grow", 6, 1200, 777, truth);
        runUntilAllCommitted(atTwo.replace("\"parallelism\": 2, \"config\": {\"bootstrap", "\"parallelism\": 3, \"config\": {\"bootstrap"),
                "out-grow", truth, false);
        assertExactlyOnce("out-grow", truth);
    }

    private static void addPartitions(String topic, int total) throws Exception {
        try (org.apache.kafka.clients.admin.Admin admin = broker.admin()) {
            admin.createPartitions(Map.of(topic, org.apache.kafka.clients.admin.NewPartitions.increaseTo(total))).all()
                    .get(30, TimeUnit.SECONDS);
        }
    }

    @Test
    void restoreWithOtherParallelismsIsExactlyOnce() throws Exception {
        // Unbounded, and the second half of the input is written only after a checkpoint completed: subtask 0 of the
        // aggregate has then passed 100 records and 1 checkpoint, so the injected failure fires at its next record,
        // mid-run, whatever the speed (a bounded job could read all input before its first checkpoint completed, and
        // the failure would not fire).
        Map<String, Truth> truth = loadFlights("in-rescale", 3, 3000, 2);
        broker.createTopics(2, "out-rescale");
        Recorder rec = new Recorder();
        JobHandle first = engine.submit(parse(unbounded(job("rescale", "in-rescale", "out-rescale", 2, 3, 0)), Map.of(
                "execution.checkpointing.interval", "30 ms",
                "restart-strategy.fixed-delay.attempts", "0",
                "debug.inject-failure.operator", "per-origin",
                "debug.inject-failure.after-records", "100",
                "debug.inject-failure.after-checkpoints", "1")), rec);
        await("a completed checkpoint").atMost(Duration.ofSeconds(60)).until(() -> rec.completed.get() >= 1);
        appendFlights("in-rescale", 3, 3000, 22, truth);
        JobResult failed = first.result().get(120, TimeUnit.SECONDS);
        assertThat(failed.status()).isEqualTo(JobStatus.FAILED);
        assertThat(String.valueOf(failed.failure())).contains("injected failure");
        // sink 3 → 1 subtasks: subtask 0 also fences what subtasks 1 and 2 left open
        runUntilAllCommitted(unbounded(job("rescale", "in-rescale", "out-rescale", 3, 1, 0)), "out-rescale", truth, false);
        assertExactlyOnce("out-rescale", truth);
    }

    @Test
    void sourceRestoredWithOtherParallelismsTwoToThreeToOneIsExactlyOnce() throws Exception {
        // 5 partitions: 3 + 2 positions at source parallelism 2, dealt 2 + 2 + 1 over 3, then all 5 to 1. Each run is
        // unbounded, reads the flights written before it, and is suspended once all of them are committed, so the
        // next run restores positions in the middle of every partition; a position skipped or read twice would show
        // as a missing or repeated update.
        Map<String, Truth> truth = loadFlights("in-src-rescale", 5, 2000, 5);
        broker.createTopics(2, "out-src-rescale");
        String atTwo = unbounded(job("src-rescale", "in-src-rescale", "out-src-rescale", 2, 2, 2, 0));
        runUntilAllCommitted(atTwo, "out-src-rescale", truth, true);
        appendFlights("in-src-rescale", 5, 2000, 55, truth);
        runUntilAllCommitted(atTwo.replace("\"parallelism\": 2, \"config\": {\"bootstrap", "\"parallelism\": 3, \"config\": {\"bootstrap"),
                "out-src-rescale", truth, true);
        appendFlights("in-src-rescale", 5, 2000, 555, truth);
        runUntilAllCommitted(atTwo.replace("\"parallelism\": 2, \"config\": {\"bootstrap", "\"parallelism\": 1, \"config\": {\"bootstrap"),
                "out-src-rescale", truth, false);
        assertExactlyOnce("out-src-rescale", truth);
    }

    @Test
    void brokerRestartMidRunIsExactlyOnce() throws Exception {
        // unbounded, so the broker restarts while the job runs, whatever the speed (a bounded job could finish before
        // it); the second half of the input is written after the restart
        Map<String, Truth> truth = loadFlights("in-restart", 2, 2000, 3);
        broker.createTopics(2, "out-restart");
        Recorder rec = new Recorder();
        JobGraph graph = parse(unbounded(job("restart", "in-restart", "out-restart", 2, 2, 0)), Map.of(
                "execution.checkpointing.interval", "50 ms",
                "restart-strategy.fixed-delay.attempts", "50",
                "restart-strategy.fixed-delay.delay", "500 ms"));
        JobHandle handle = engine.submit(graph, rec);
        try {
            await("a checkpoint before the broker restart").atMost(Duration.ofSeconds(60)).until(() -> rec.completed.get() >= 1);
            broker.restart();
            appendFlights("in-restart", 2, 2000, 33, truth);
            awaitEveryUpdateCommitted(handle, "out-restart", truth, Duration.ofSeconds(180));
        } finally {
            handle.cancel();
        }
        handle.result().get(60, TimeUnit.SECONDS);
        assertExactlyOnce("out-restart", truth);
    }

    private JobResult run(String json, Map<String, String> overrides, Recorder rec) throws Exception {
        return engine.submit(parse(json, overrides), rec).result().get(180, TimeUnit.SECONDS);
    }

    /** @return the job with an unbounded source */
    private static String unbounded(String json) {
        return json.replace("\"bounded\": true", "\"bounded\": false");
    }

    /**
     * Runs an unbounded job (checkpoints every 30 ms) until every expected update is committed, then suspends it (it
     * ends SUSPENDED and the next run resumes from its latest checkpoint) or cancels it.
     */
    private void runUntilAllCommitted(String json, String out, Map<String, Truth> truth, boolean suspend) throws Exception {
        JobHandle handle = engine.submit(parse(json, Map.of("execution.checkpointing.interval", "30 ms")), new Recorder());
        try {
            awaitEveryUpdateCommitted(handle, out, truth, Duration.ofSeconds(120));
        } finally {
            if (suspend) {
                handle.suspend();
            } else {
                handle.cancel();
            }
        }
        JobResult r = handle.result().get(60, TimeUnit.SECONDS);
        assertThat(r.status()).as("%s", r.failure()).isEqualTo(suspend ? JobStatus.SUSPENDED : JobStatus.CANCELED);
    }

    /**
     * Waits until a read_committed reader sees at least as many records as {@code truth} has updates, while the
     * unbounded job runs; fails at once, with the job's status and failure, if the job ends first (it never ends on
     * its own: a FAILED job would otherwise only show as a timeout).
     */
    private static void awaitEveryUpdateCommitted(JobHandle handle, String out, Map<String, Truth> truth, Duration atMost) {
        long updates = truth.values().stream().mapToLong(Truth::count).sum();
        try {
            await("every update committed").atMost(atMost).pollInterval(Duration.ofMillis(500)).until(() -> {
                if (handle.result().isDone()) {
                    JobResult r = handle.result().join();
                    throw new AssertionError("job " + r.jobName() + " ended " + r.status() + " after " + r.restarts()
                            + " restart(s) before every update was committed (" + broker.readAll(out, true).size() + " of "
                            + updates + " visible)", r.failure());
                }
                return broker.readAll(out, true).size() >= updates;
            });
        } catch (org.awaitility.core.ConditionTimeoutException e) {
            throw new AssertionError(e.getMessage() + "; the job is " + handle.status() + ", rows sent per operator since"
                    + " it was deployed " + handle.recordsWritten() + "; " + diagnose(out, truth), e);
        }
    }

    /**
     * What a timed-out wait saw: committed vs all records, the missing or repeated counts per origin, and the
     * broker's open transactions (one left open holds read_committed readers at its first offset).
     */
    private static String diagnose(String out, Map<String, Truth> truth) {
        StringBuilder sb = new StringBuilder();
        try {
            List<String> committed = broker.readAll(out, true);
            sb.append(committed.size()).append(" committed records, ").append(broker.readAll(out, false).size())
                    .append(" records in all; ");
            Map<String, List<Long>> counts = new TreeMap<>();
            for (String v : committed) {
                try (JsonReader r = Json.createReader(new StringReader(v))) {
                    JsonObject o = r.readObject();
                    counts.computeIfAbsent(o.getString("origin"), k -> new ArrayList<>()).add(o.getJsonNumber("flights").longValueExact());
                }
            }
            for (Map.Entry<String, Truth> e : truth.entrySet()) {
                List<Long> seen = counts.getOrDefault(e.getKey(), List.of());
                java.util.Set<Long> distinct = new java.util.TreeSet<>(seen);
                List<Long> missing = LongStream.rangeClosed(1, e.getValue().count()).filter(c -> !distinct.contains(c)).boxed().toList();
                if (!missing.isEmpty() || distinct.size() != seen.size()) {
                    sb.append(e.getKey()).append(": ").append(missing.size()).append(" missing (first ")
                            .append(missing.stream().limit(5).toList()).append("), ").append(seen.size() - distinct.size())
                            .append(" repeated; ");
                }
            }
            try (org.apache.kafka.clients.admin.Admin admin = broker.admin()) {
                sb.append("open transactions at the broker: ").append(admin.listTransactions().all().get(30, TimeUnit.SECONDS)
                        .stream().filter(t -> t.state() != org.apache.kafka.clients.admin.TransactionState.COMPLETE_COMMIT
                                && t.state() != org.apache.kafka.clients.admin.TransactionState.COMPLETE_ABORT
                                && t.state() != org.apache.kafka.clients.admin.TransactionState.EMPTY)
                        .map(t -> t.transactionalId() + "=" + t.state()).toList());
            }
        } catch (Exception x) {
            sb.append("(diagnosis failed: ").append(x).append(')');
        }
        return sb.toString();
    }

    private JobGraph parse(String json, Map<String, String> overrides) throws Exception {
        return new JobSpecParser(engine.services().plugins(), JsonProvider.provider()).parse(json, tmp, overrides);
    }

    private String job(String name, String in, String out, int aggregates, int sinks, int sleepMs) {
        return job(name, in, out, 2, aggregates, sinks, sleepMs);
    }

    private String job(String name, String in, String out, int sources, int aggregates, int sinks, int sleepMs) {
        return """
                {"name": "%s",
                 "config": {"execution.checkpointing.dir": "%s"},
                 "operators": [
                   {"id": "flights", "type": "kafka", "parallelism": %d, "config": {"bootstrap-servers": "%s", "topics": ["%s"],
                     "bounded": true, "schema": {"delay": "long", "origin": "string"}}},
                   {"id": "per-origin", "type": "keyed-aggregate", "parallelism": %d,
                    "inputs": [{"from": "flights", "partitioning": "hash", "keys": ["origin"]}],
                    "config": {"key": ["origin"], "sleep-ms-per-record": %d,
                               "aggregates": [{"fn": "count", "as": "flights"}, {"fn": "avg", "field": "delay", "as": "avg_delay"}]}},
                   {"id": "out", "type": "kafka-2pc", "parallelism": %d, "inputs": [{"from": "per-origin", "partitioning": "rebalance"}],
                    "config": {"bootstrap-servers": "%s", "topic": "%s", "key-field": "origin"}}
                 ]}
                """.formatted(name, tmp.resolve("checkpoints"), sources, broker.bootstrapServers(), in, aggregates, sleepMs, sinks,
                broker.bootstrapServers(), out);
    }

    /** Writes {@code records} flights over {@code partitions} partitions; @return the expected per-origin totals */
    private static Map<String, Truth> loadFlights(String topic, int partitions, int records, long seed) {
        broker.createTopics(partitions, topic);
        Map<String, Truth> truth = new TreeMap<>();
        appendFlights(topic, partitions, records, seed, truth);
        return truth;
    }

    /** Writes {@code records} more flights over the topic's {@code partitions} partitions, adding them to {@code truth}. */
    private static void appendFlights(String topic, int partitions, int records, long seed, Map<String, Truth> truth) {
        Random random = new Random(seed);
        List<List<String>> perPartition = new ArrayList<>();
        for (int p = 0; p < partitions; p++) {
            perPartition.add(new ArrayList<>());
        }
        for (int i = 0; i < records; i++) {
            String origin = "O" + random.nextInt(ORIGINS);
            long delay = -30 + random.nextInt(331);
            perPartition.get(i % partitions).add("{\"delay\": " + delay + ", \"origin\": \"" + origin + "\"}");
            truth.merge(origin, new Truth(1, delay), (a, b) -> new Truth(a.count + 1, a.delaySum + b.delaySum));
        }
        for (int p = 0; p < partitions; p++) {
            broker.produce(topic, p, perPartition.get(p));
        }
    }

    /** Every update per origin committed once: counts 1..N each once; the last average is sum / N. */
    private static void assertExactlyOnce(String topic, Map<String, Truth> truth) {
        Map<String, List<JsonObject>> byOrigin = new TreeMap<>();
        for (String v : broker.readAll(topic, true)) {
            try (JsonReader r = Json.createReader(new StringReader(v))) {
                JsonObject o = r.readObject();
                byOrigin.computeIfAbsent(o.getString("origin"), k -> new ArrayList<>()).add(o);
            }
        }
        assertThat(byOrigin.keySet()).isEqualTo(truth.keySet());
        for (Map.Entry<String, Truth> e : truth.entrySet()) {
            Truth t = e.getValue();
            List<Long> counts = byOrigin.get(e.getKey()).stream().map(o -> o.getJsonNumber("flights").longValueExact())
                    .sorted().collect(Collectors.toList());
            assertThat(counts).as("updates of origin %s (1..%d, each once)", e.getKey(), t.count())
                    .containsExactlyElementsOf(LongStream.rangeClosed(1, t.count()).boxed().toList());
            JsonObject last = byOrigin.get(e.getKey()).stream().filter(o -> o.getJsonNumber("flights").longValueExact() == t.count())
                    .findFirst().orElseThrow();
            assertThat(last.getJsonNumber("avg_delay").doubleValue()).isCloseTo((double) t.delaySum() / t.count(), offset(1e-9));
        }
    }

    /** Counts completed checkpoints and restarts. */
    private static final class Recorder implements JobListener {
        final AtomicInteger completed = new AtomicInteger();
        final AtomicInteger restarts = new AtomicInteger();
        final List<String> restartCauses = new java.util.concurrent.CopyOnWriteArrayList<>();
        final List<Long> durations = new java.util.concurrent.CopyOnWriteArrayList<>();

        @Override
        public void onCompleted(CompletedCheckpointStats stats) {
            durations.add(stats.endToEndDurationMs());
            completed.incrementAndGet();
        }

        @Override
        public void onRestart(String jobName, int attempt, Throwable cause) {
            restartCauses.add(String.valueOf(cause));
            restarts.incrementAndGet();
        }
    }
}
