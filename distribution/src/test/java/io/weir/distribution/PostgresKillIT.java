package io.weir.distribution;

import io.weir.plugin.postgres.testing.PostgresTestServer;
import jakarta.json.Json;
import jakarta.json.JsonObject;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.BufferedWriter;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;

import static io.weir.distribution.WeirProcesses.describe;
import static io.weir.distribution.WeirProcesses.killWithDescendants;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The {@code jdbc-postgres} sink in the real distribution ({@code bin/weir run}: Felix, the sink and the
 * PostgreSQL JDBC driver installed from {@code plugins/} by FileInstall) against a real server: the
 * process is killed with SIGKILL exactly between {@code PREPARE TRANSACTION} and {@code COMMIT PREPARED}
 * (held there by the sink's {@code debug.inject-delay.before-commit-prepared}); the next run restores
 * the checkpoint, commits the prepared transaction it recorded and finishes, and the table holds every
 * update exactly once (SQL against a ground truth computed here from the generated input).
 */
class PostgresKillIT {
    private static final Path HOME = Path.of(System.getProperty("weir.home", "target/weir")).toAbsolutePath();
    private static final Path WEIR = HOME.resolve("bin/weir");
    private static final String JOB = "pg-kill";
    private static final int RECORDS = 4000;
    private static final int ORIGINS = 10;
    private static PostgresTestServer db;

    @TempDir
    Path work;

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

    @Test
    void killedBetweenPrepareAndCommitPreparedTheNextRunCommitsEveryRowExactlyOnce() throws Exception {
        db.reset();
        db.execute("CREATE TABLE updates (origin text NOT NULL, flights bigint NOT NULL, total_delay bigint)");
        Path input = work.resolve("flights.jsonl");
        Map<String, long[]> truth = writeFlights(input);
        Path checkpoints = work.resolve("checkpoints");

        // run 1: the sink holds its first COMMIT PREPARED for 10 min; SIGKILL while it holds
        Path job = writeJob(input, checkpoints, 600_000);
        Path out1 = work.resolve("run1-stdout.txt");
        Path err1 = work.resolve("run1-stderr.txt");
        Process first = start(job, out1, err1);
        try {
            await("the sink holding before COMMIT PREPARED").atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(20))
                    .until(() -> !first.isAlive() || (Files.readString(err1, StandardCharsets.UTF_8).contains("before COMMIT PREPARED")
                            && Files.readString(out1, StandardCharsets.UTF_8).contains("Completed checkpoint")));
            assertThat(first.isAlive()).as("run 1 ended before the hold: %s", describe(first, out1, err1)).isTrue();
        } finally {
            killWithDescendants(first);
        }
        assertThat(db.preparedGids()).as("prepared, not committed, at the kill")
                .isNotEmpty().allSatisfy(gid -> assertThat(gid).startsWith("weir:" + JOB + ":out:0:"));
        assertThat(db.queryLong("SELECT count(*) FROM updates")).as("rows visible at the kill").isZero();

        // run 2: the same job without the hold resumes, commits the recorded transaction, finishes
        writeJob(input, checkpoints, 0);
        Path out2 = work.resolve("run2-stdout.txt");
        Path err2 = work.resolve("run2-stderr.txt");
        Process second = start(job, out2, err2);
        if (!second.waitFor(90, TimeUnit.SECONDS)) {
            killWithDescendants(second);
            throw new AssertionError("run 2 did not end within 90 s: " + describe(second, out2, err2));
        }
        assertThat(second.exitValue()).as(describe(second, out2, err2)).isZero();
        assertThat(Files.readString(out2, StandardCharsets.UTF_8)).contains("Restoring job " + JOB + " from checkpoint")
                .contains("Job " + JOB + " FINISHED");
        assertExactlyOnce(truth);
        assertThat(db.preparedGids()).as("no prepared transaction left behind").isEmpty();
    }

    private static Map<String, long[]> writeFlights(Path file) throws IOException {
        Map<String, long[]> truth = new TreeMap<>();
        Random random = new Random(7);
        try (BufferedWriter w = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
            for (int id = 1; id <= RECORDS; id++) {
                String origin = "A" + random.nextInt(ORIGINS);
                long delay = random.nextInt(300) - 30;
                w.write("{\"id\": " + id + ", \"origin\": \"" + origin + "\", \"delay\": " + delay + "}\n");
                long[] t = truth.computeIfAbsent(origin, k -> new long[2]);
                t[0]++;
                t[1] += delay;
            }
        }
        return truth;
    }

    /** flights → per-origin count and delay sum (1 ms per record) → jdbc-postgres, checkpoints every 200 ms. */
    private Path writeJob(Path input, Path checkpoints, long holdMs) throws IOException {
        JsonObject job = Json.createObjectBuilder()
                .add("name", JOB)
                .add("config", Json.createObjectBuilder()
                        .add("execution.checkpointing.interval", "200 ms")
                        .add("execution.checkpointing.dir", checkpoints.toString()))
                .add("operators", Json.createArrayBuilder()
                        .add(Json.createObjectBuilder().add("id", "flights").add("type", "file").add("parallelism", 1)
                                .add("config", Json.createObjectBuilder().add("path", input.toString()).add("format", "lines")
                                        .add("schema", Json.createObjectBuilder().add("id", "long").add("origin", "string").add("delay", "long"))))
                        .add(Json.createObjectBuilder().add("id", "per-origin").add("type", "keyed-aggregate").add("parallelism", 2)
                                .add("inputs", Json.createArrayBuilder().add(Json.createObjectBuilder().add("from", "flights")
                                        .add("partitioning", "hash").add("keys", Json.createArrayBuilder().add("origin"))))
                                .add("config", Json.createObjectBuilder()
                                        .add("key", Json.createArrayBuilder().add("origin"))
                                        .add("aggregates", Json.createArrayBuilder()
                                                .add(Json.createObjectBuilder().add("fn", "count").add("as", "flights"))
                                                .add(Json.createObjectBuilder().add("fn", "sum").add("field", "delay").add("as", "total_delay")))
                                        .add("sleep-ms-per-record", 1)))
                        .add(Json.createObjectBuilder().add("id", "out").add("type", "jdbc-postgres").add("parallelism", 1)
                                .add("inputs", Json.createArrayBuilder().add(Json.createObjectBuilder().add("from", "per-origin")
                                        .add("partitioning", "rebalance")))
                                .add("config", Json.createObjectBuilder().add("url", db.url()).add("user", PostgresTestServer.USER)
                                        .add("table", "updates").add("debug.inject-delay.before-commit-prepared", holdMs))))
                .build();
        Path file = work.resolve(JOB + ".json");
        Files.writeString(file, job.toString(), StandardCharsets.UTF_8);
        return file;
    }

    private static void assertExactlyOnce(Map<String, long[]> truth) throws Exception {
        Map<String, List<Long>> seen = new TreeMap<>();
        try (Connection c = db.connect(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT origin, count(*), count(DISTINCT flights), max(flights),"
                     + " (SELECT u2.total_delay FROM updates u2 WHERE u2.origin = u.origin ORDER BY u2.flights DESC LIMIT 1)"
                     + " FROM updates u GROUP BY origin")) {
            while (rs.next()) {
                seen.put(rs.getString(1), List.of(rs.getLong(2), rs.getLong(3), rs.getLong(4), rs.getLong(5)));
            }
        }
        assertThat(seen.keySet()).containsExactlyElementsOf(truth.keySet());
        truth.forEach((origin, t) -> assertThat(seen.get(origin))
                .as("origin %s: rows, distinct counts, max count, delay sum at max", origin)
                .containsExactly(t[0], t[0], t[0], t[1]));
    }

    private Process start(Path job, Path stdout, Path stderr) throws IOException {
        Process p = new ProcessBuilder(WEIR.toString(), "run", job.toString()).directory(work.toFile())
                .redirectOutput(stdout.toFile()).redirectError(stderr.toFile()).redirectInput(ProcessBuilder.Redirect.PIPE).start();
        p.getOutputStream().close();
        return p;
    }
}
