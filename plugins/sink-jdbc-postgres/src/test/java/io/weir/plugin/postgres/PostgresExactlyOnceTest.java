package io.weir.plugin.postgres;

import io.weir.core.config.Configuration;
import io.weir.core.engine.JobResult;
import io.weir.core.engine.JobStatus;
import io.weir.core.job.JobGraph;
import io.weir.core.job.JobSpecParser;
import io.weir.plugin.postgres.testing.PostgresTestServer;
import io.weir.runtime.engine.LocalEngine;
import jakarta.json.spi.JsonProvider;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.BufferedWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Jobs on the embedded engine (plugins through ServiceLoader) writing through the {@code jdbc-postgres}
 * sink into a real PostgreSQL server, checked by SQL against a ground truth computed here from the
 * generated input: flights (id, origin, delay) → running count and delay sum per origin (one updated
 * row per flight) → inserted into {@code updates}. Exactly once means: for every origin, the counts
 * 1..N each appear once, and the row with count N has the true delay sum.
 */
class PostgresExactlyOnceTest {
    private static final String JOB = "pg-flights";
    private static final int RECORDS = 3000;
    private static final int ORIGINS = 12;
    private static PostgresTestServer db;

    @TempDir
    Path tmp;
    private LocalEngine engine;
    private Path input;
    /** origin → {count, delay sum} */
    private Map<String, long[]> truth;

    @BeforeAll
    static void startServer() throws Exception {
        db = PostgresTestServer.start();
    }

    @AfterAll
    static void stopServer() {
        if (db != null) {
            db.close();
        }
    }

    @BeforeEach
    void setUp() throws Exception {
        db.reset();
        db.execute("CREATE TABLE updates (origin text NOT NULL, flights bigint NOT NULL, total_delay bigint)");
        engine = LocalEngine.fromServiceLoader(getClass().getClassLoader(), Configuration.empty());
        input = tmp.resolve("flights.jsonl");
        truth = new TreeMap<>();
        Random random = new Random(42);
        try (BufferedWriter w = Files.newBufferedWriter(input, StandardCharsets.UTF_8)) {
            for (int id = 1; id <= RECORDS; id++) {
                String origin = "O" + random.nextInt(ORIGINS);
                long delay = random.nextInt(200) - 20;
                w.write("{\"id\": " + id + ", \"origin\": \"" + origin + "\", \"delay\": " + delay + "}\n");
                long[] t = truth.computeIfAbsent(origin, k -> new long[2]);
                t[0]++;
                t[1] += delay;
            }
        }
    }

    @AfterEach
    void stopEngine() {
        engine.close();
    }

    @Test
    void cleanRunInsertsEveryUpdateExactlyOnce() throws Exception {
        JobResult result = run(2, 0, Map.of("execution.checkpointing.interval", "30 ms"), () -> { });

        assertThat(result.status()).isEqualTo(JobStatus.FINISHED);
        assertThat(result.restarts()).isZero();
        assertExactlyOnce();
    }

    @Test
    void taskFailureMidRunRestoresAndStaysExactlyOnce() throws Exception {
        JobResult result = run(2, 1, Map.of(
                "execution.checkpointing.interval", "20 ms",
                "taskmanager.memory.segment-size", "2048",
                "restart-strategy.fixed-delay.delay", "10 ms",
                "debug.inject-failure.operator", "out",
                "debug.inject-failure.after-records", "300",
                "debug.inject-failure.after-checkpoints", "2"), () -> { });

        assertThat(result.status()).isEqualTo(JobStatus.FINISHED);
        assertThat(result.restarts()).isEqualTo(1);
        assertExactlyOnce();
    }

    /**
     * The server crashes ({@code -m immediate}) and restarts once rows are committed: the sinks' open
     * transactions are lost with their sessions, so the tasks fail and restart from the latest checkpoint;
     * prepared transactions survive and are committed.
     */
    @Test
    void databaseRestartedMidRunStaysExactlyOnce() throws Exception {
        JobResult result = run(2, 1, Map.of(
                "execution.checkpointing.interval", "20 ms",
                "taskmanager.memory.segment-size", "2048",
                "restart-strategy.fixed-delay.attempts", "5",
                "restart-strategy.fixed-delay.delay", "300 ms"), () -> {
                    await("committed rows").atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(10))
                            .until(() -> db.queryLong("SELECT count(*) FROM updates") > 0);
                    db.restart();
                });

        assertThat(result.status()).isEqualTo(JobStatus.FINISHED);
        assertThat(result.restarts()).as("the lost sessions failed the tasks").isPositive();
        assertExactlyOnce();
    }

    /**
     * Run 1 (sink parallelism 3) fails for good after a checkpoint, leaving prepared transactions of
     * checkpoints that never completed; run 2 resumes with parallelism 1 from the latest checkpoint:
     * subtask 0 commits what the checkpoint recorded for all three old subtasks and rolls back the rest.
     */
    @Test
    void restoreWithAnotherParallelismCommitsRecordedAndRollsBackTheOtherPreparedTransactions() throws Exception {
        JobResult first = run(3, 1, Map.of(
                "execution.checkpointing.interval", "20 ms",
                "execution.checkpointing.max-concurrent-checkpoints", "2",
                "taskmanager.memory.segment-size", "2048",
                "restart-strategy.fixed-delay.attempts", "0",
                "debug.inject-failure.operator", "per-origin",
                "debug.inject-failure.after-records", "800",
                "debug.inject-failure.after-checkpoints", "1"), () -> { });
        assertThat(first.status()).isEqualTo(JobStatus.FAILED);

        JobResult second = run(1, 0, Map.of("execution.checkpointing.interval", "20 ms"), () -> { });

        assertThat(second.status()).isEqualTo(JobStatus.FINISHED);
        assertExactlyOnce();
    }

    /**
     * Upsert of the running aggregate per origin (input partitioned by key), each key updated in many
     * checkpoints' transactions: the table ends with the true final row per key. (The lock wait that
     * holding rows back avoids is shown deterministically in PostgresSinkTest.)
     */
    @Test
    void upsertOfKeysUpdatedInEveryCheckpointLeavesTheTrueFinalRowPerKey() throws Exception {
        db.execute("CREATE TABLE latest (origin text PRIMARY KEY, flights bigint NOT NULL, total_delay bigint)");
        JobResult result = run(2, 0, Map.of("execution.checkpointing.interval", "10 ms"), () -> { },
                "\"partitioning\": \"hash\", \"keys\": [\"origin\"]",
                "\"table\": \"latest\", \"mode\": \"upsert\", \"key\": [\"origin\"], \"batch-size\": 5, \"lock-timeout-ms\": 60000");

        assertThat(result.status()).isEqualTo(JobStatus.FINISHED);
        assertThat(result.restarts()).isZero();
        assertLatestRowPerOriginIsTheTruth();
    }

    /**
     * Upsert with two concurrent checkpoints and an injected task failure: barriers arrive while the previous
     * checkpoint's transaction is uncommitted, so rows are held in the checkpoint instead of waiting for its row
     * locks (which failed the task after lock-timeout-ms before), and the restore upserts the held rows it recorded.
     * The only restart is the injected one; the table ends with the true final row per key.
     */
    @Test
    void upsertWithConcurrentCheckpointsAndAFailureNeverWaitsForItsOwnLocks() throws Exception {
        db.execute("CREATE TABLE latest (origin text PRIMARY KEY, flights bigint NOT NULL, total_delay bigint)");
        JobResult result = run(2, 1, Map.of(
                        "execution.checkpointing.interval", "10 ms",
                        "execution.checkpointing.max-concurrent-checkpoints", "2",
                        "taskmanager.memory.segment-size", "2048",
                        "restart-strategy.fixed-delay.attempts", "1",
                        "restart-strategy.fixed-delay.delay", "10 ms",
                        "debug.inject-failure.operator", "out",
                        "debug.inject-failure.after-records", "300",
                        "debug.inject-failure.after-checkpoints", "2"), () -> { },
                "\"partitioning\": \"hash\", \"keys\": [\"origin\"]",
                "\"table\": \"latest\", \"mode\": \"upsert\", \"key\": [\"origin\"], \"batch-size\": 5, \"lock-timeout-ms\": 5000");

        assertThat(result.status()).as("%s", result.failure()).isEqualTo(JobStatus.FINISHED);
        assertThat(result.restarts()).as("only the injected failure").isEqualTo(1);
        assertLatestRowPerOriginIsTheTruth();
    }

    private void assertLatestRowPerOriginIsTheTruth() throws Exception {
        Map<String, long[]> seen = new TreeMap<>();
        try (Connection c = db.connect(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT origin, flights, total_delay FROM latest")) {
            while (rs.next()) {
                seen.put(rs.getString(1), new long[] {rs.getLong(2), rs.getLong(3)});
            }
        }
        assertThat(seen.keySet()).containsExactlyElementsOf(truth.keySet());
        truth.forEach((origin, t) -> assertThat(seen.get(origin)).as(origin).containsExactly(t[0], t[1]));
        assertThat(db.preparedGids()).isEmpty();
    }

    private JobResult run(int sinkParallelism, int sleepMsPerRecord, Map<String, String> overrides, ThrowingAction whileRunning)
            throws Exception {
        return run(sinkParallelism, sleepMsPerRecord, overrides, whileRunning, "\"partitioning\": \"rebalance\"",
                "\"table\": \"updates\", \"batch-size\": 50");
    }

    private JobResult run(int sinkParallelism, int sleepMsPerRecord, Map<String, String> overrides, ThrowingAction whileRunning,
            String sinkPartitioning, String sinkConfig) throws Exception {
        String json = """
                {"name": "%s",
                 "config": {"execution.checkpointing.dir": "%s"},
                 "operators": [
                   {"id": "flights", "type": "file", "parallelism": 1, "config": {"path": "%s", "format": "lines",
                     "schema": {"id": "long", "origin": "string", "delay": "long"}}},
                   {"id": "per-origin", "type": "keyed-aggregate", "parallelism": 2,
                    "inputs": [{"from": "flights", "partitioning": "hash", "keys": ["origin"]}],
                    "config": {"key": ["origin"], "sleep-ms-per-record": %d,
                               "aggregates": [{"fn": "count", "as": "flights"}, {"fn": "sum", "field": "delay", "as": "total_delay"}]}},
                   {"id": "out", "type": "jdbc-postgres", "parallelism": %d,
                    "inputs": [{"from": "per-origin", %s}],
                    "config": {"url": "%s", "user": "%s", "retry-backoff-ms": 100, %s}}
                 ]}
                """.formatted(JOB, tmp.resolve("checkpoints"), input, sleepMsPerRecord, sinkParallelism, sinkPartitioning, db.url(),
                PostgresTestServer.USER, sinkConfig);
        JobGraph job = new JobSpecParser(engine.services().plugins(), JsonProvider.provider()).parse(json, tmp, new HashMap<>(overrides));
        CompletableFuture<JobResult> result = engine.submit(job, stats -> { }).result();
        whileRunning.run();
        return result.get(120, TimeUnit.SECONDS);
    }

    private void assertExactlyOnce() throws Exception {
        Map<String, long[]> seen = new TreeMap<>();
        try (Connection c = db.connect(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT origin, count(*), count(DISTINCT flights), max(flights),"
                     + " (SELECT u2.total_delay FROM updates u2 WHERE u2.origin = u.origin ORDER BY u2.flights DESC LIMIT 1)"
                     + " FROM updates u GROUP BY origin")) {
            while (rs.next()) {
                seen.put(rs.getString(1), new long[] {rs.getLong(2), rs.getLong(3), rs.getLong(4), rs.getLong(5)});
            }
        }
        assertThat(seen.keySet()).containsExactlyElementsOf(truth.keySet());
        AtomicInteger checked = new AtomicInteger();
        truth.forEach((origin, t) -> {
            long[] s = seen.get(origin);
            assertThat(s).as("origin %s: rows, distinct counts, max count, delay sum at max", origin)
                    .containsExactly(t[0], t[0], t[0], t[1]);
            checked.incrementAndGet();
        });
        assertThat(checked).hasValue(ORIGINS);
        assertThat(db.preparedGids()).as("no prepared transaction left behind").isEmpty();
    }

    /** Test code run while the job runs. */
    @FunctionalInterface
    private interface ThrowingAction {
        void run() throws Exception;
    }
}
