package io.weir.benchmarks.postgres;

import io.weir.core.config.Configuration;
import io.weir.core.engine.JobResult;
import io.weir.core.engine.JobStatus;
import io.weir.core.job.JobGraph;
import io.weir.core.job.JobSpecParser;
import io.weir.plugin.postgres.testing.PostgresTestServer;
import io.weir.runtime.engine.LocalEngine;
import jakarta.json.spi.JsonProvider;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Rows/s of the {@code jdbc-postgres} sink on the embedded engine against a private PostgreSQL server
 * ({@link PostgresTestServer}: {@code fsync=off}, on this machine): {@code datagen} (unlimited rate,
 * {@code limit} rows, 100-byte payloads) → {@code jdbc-postgres} (parallelism 2, batches of 500) with a
 * checkpoint every 1 s, once in {@code insert} mode and once in {@code upsert} mode on 10,000 keys (input
 * partitioned by key).
 * Prints one JSON line per mode: rows, elapsed ms from submission to the final commit, rows/s,
 * checkpoints. Not part of the test suite: {@code benchmarks/postgres-sink.sh [rows]}.
 */
public final class PostgresSinkBenchmark {
    private PostgresSinkBenchmark() {
    }

    /** @param args optional: rows per mode (default 1,000,000) */
    public static void main(String[] args) throws Exception {
        long rows = args.length > 0 ? Long.parseLong(args[0]) : 1_000_000L;
        try (PostgresTestServer db = PostgresTestServer.start()) {
            for (String mode : new String[] {"insert", "upsert"}) {
                db.reset();
                db.execute("CREATE TABLE bench (key bigint" + (mode.equals("upsert") ? " PRIMARY KEY" : "")
                        + ", seq bigint, ts timestamp, payload bytea)");
                Path dir = Files.createTempDirectory("weir-pg-bench-");
                String json = """
                        {"name": "pg-bench-%s", "config": {"execution.checkpointing.interval": "1 s", "execution.checkpointing.dir": "%s"},
                         "operators": [
                           {"id": "gen", "type": "datagen", "parallelism": 2, "config": {"rate": 0, "keys": 10000, "limit": %d}},
                           {"id": "out", "type": "jdbc-postgres", "parallelism": 2, "inputs": [{"from": "gen", %s}],
                            "config": {"url": "%s", "user": "%s", "table": "bench", "mode": "%s"%s}}
                         ]}
                        """.formatted(mode, dir.resolve("checkpoints"), rows,
                        // upsert: one key's rows to one subtask, or two subtasks' transactions wait on each other's locks
                        mode.equals("upsert") ? "\"partitioning\": \"hash\", \"keys\": [\"key\"]" : "\"partitioning\": \"rebalance\"",
                        db.url(), PostgresTestServer.USER, mode,
                        mode.equals("upsert") ? ", \"key\": [\"key\"]" : "");
                try (LocalEngine engine = LocalEngine.fromServiceLoader(PostgresSinkBenchmark.class.getClassLoader(), Configuration.empty())) {
                    JobGraph job = new JobSpecParser(engine.services().plugins(), JsonProvider.provider()).parse(json, dir, Map.of());
                    long start = System.nanoTime();
                    JobResult result = engine.submit(job, stats -> { }).result().get(30, TimeUnit.MINUTES);
                    long elapsedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
                    if (result.status() != JobStatus.FINISHED) {
                        throw new IllegalStateException("benchmark job " + mode + " ended " + result.status(), result.failure());
                    }
                    long inTable = db.queryLong("SELECT count(*) FROM bench");
                    System.out.printf("{\"mode\": \"%s\", \"rows\": %d, \"rows_in_table\": %d, \"elapsed_ms\": %d, \"rows_per_s\": %d,"
                                    + " \"checkpoint_interval_ms\": 1000, \"sink_parallelism\": 2, \"restarts\": %d}%n",
                            mode, rows, inTable, elapsedMs, rows * 1000 / Math.max(1, elapsedMs), result.restarts());
                }
            }
        }
    }
}
