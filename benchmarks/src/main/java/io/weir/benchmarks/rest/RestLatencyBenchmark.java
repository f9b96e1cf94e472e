package io.weir.benchmarks.rest;

import io.weir.benchmarks.BenchmarkFiles;
import io.weir.benchmarks.JsonLines;
import io.weir.benchmarks.Percentiles;
import io.weir.benchmarks.Spread;
import jakarta.json.JsonArray;
import jakarta.json.JsonObject;
import jakarta.json.JsonObjectBuilder;
import jakarta.json.JsonValue;
import jakarta.json.spi.JsonProvider;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.IOException;
import java.io.PrintStream;
import java.io.StringReader;
import java.lang.management.ManagementFactory;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Latency of {@code GET /jobs/:id/checkpoints} on a real node while the {@code throughput-16} pipeline runs
 * on it, and what serving a client that polls it costs the job in throughput.
 *
 * <p>Starts the built distribution's {@code bin/weir node} as a child process on a free loopback port with a
 * temporary data directory, and talks to it only over HTTP ({@code java.net.http}). Each round submits the
 * pipeline as a new job ({@code datagen} p=2, unlimited rate, 100-byte records, 16 keys → hash →
 * {@code keyed-aggregate} count p=2 → {@code discard}, chained; checkpoint every 1 s), waits until it is
 * RUNNING, lets it warm up, then measures for {@code --round-s}: records/s is the growth of the source
 * vertex's {@code metrics.write-records} ({@code GET /jobs/:id}, read at the start and the end of the
 * window), and in rounds with the poller a client sends {@code GET /jobs/:id/checkpoints} every
 * {@code --poll-ms} (fixed rate, one request at a time; a late response delays the next request) and records
 * each response's latency (request sent → body read). Then the job is cancelled. After
 * {@code --warmup-rounds} (1, without the poller, left out of the summary: the node's JIT compiles the record
 * path in the first job), rounds alternate without and with the poller, starting without.
 *
 * <p>stdout: a {@code round} JSON line per round, then a {@code summary} line: records/s without and with the
 * poller (median, min, max, spread), their ratio of medians ({@code with / without}), and the latency
 * percentiles over all polls. Logs go to stderr; the node's output to {@code node.log} in the data directory
 * (kept with {@code --keep}). Exit status 0 on success, 1 when the node or a job failed, 2 on a usage error.
 * Main thread, plus the poller's thread.
 */
@Command(name = "rest-latency-benchmark", mixinStandardHelpOptions = true,
        description = "GET /jobs/:id/checkpoints latency on a real node under throughput-16, and the throughput cost of polling it.")
public final class RestLatencyBenchmark implements Callable<Integer> {
    private static final Logger LOG = LoggerFactory.getLogger(RestLatencyBenchmark.class);
    private static final String SOURCE = "source";

    @CommandLine.Spec
    private CommandLine.Model.CommandSpec spec;

    @Option(names = "--weir", paramLabel = "FILE", defaultValue = "distribution/target/weir/bin/weir",
            description = "The distribution's launcher (default: ${DEFAULT-VALUE})")
    private Path weir;

    @Option(names = "--rounds", paramLabel = "N", defaultValue = "3", description = "Rounds per mode, without and with the poller (default: ${DEFAULT-VALUE})")
    private int rounds;

    @Option(names = "--warmup-rounds", paramLabel = "N", defaultValue = "1",
            description = "Rounds without the poller run first and left out of the summary (the node's JIT; their lines say \"warmup\": true) (default: ${DEFAULT-VALUE})")
    private int warmupRounds;

    @Option(names = "--round-s", paramLabel = "N", defaultValue = "20", description = "Measured seconds per round (default: ${DEFAULT-VALUE})")
    private int roundS;

    @Option(names = "--warmup-s", paramLabel = "N", defaultValue = "5", description = "Seconds each job runs before its window (default: ${DEFAULT-VALUE})")
    private int warmupS;

    @Option(names = "--poll-ms", paramLabel = "N", defaultValue = "100", description = "Poll period in ms (default: ${DEFAULT-VALUE})")
    private int pollMs;

    @Option(names = "--keep", description = "Keep the node's data directory (its path is logged)")
    private boolean keep;

    private final PrintStream stdout;
    private final JsonProvider json = JsonProvider.provider();
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    /** @param stdout where JSON lines go */
    public RestLatencyBenchmark(PrintStream stdout) {
        this.stdout = stdout;
    }

    /** Runs the command line; exits the JVM with the status described on the class. */
    public static void main(String[] args) {
        System.exit(new CommandLine(new RestLatencyBenchmark(System.out)).execute(args));
    }

    @Override
    public Integer call() throws Exception {
        if (rounds < 1 || roundS < 1 || warmupS < 0 || pollMs < 1 || warmupRounds < 0) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--rounds, --round-s and --poll-ms must be >= 1 and --warmup-s and"
                    + " --warmup-rounds >= 0, got " + rounds + ", " + roundS + ", " + pollMs + ", " + warmupS + ", " + warmupRounds);
        }
        if (!Files.isExecutable(weir)) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--weir " + weir.toAbsolutePath()
                    + " is not an executable file; build the distribution first (mvn -o -B package -DskipTests -pl distribution -am)");
        }
        Path data = Files.createTempDirectory("weir-rest-benchmark-");
        int port = freePort();
        Process node = startNode(data, port);
        try {
            String base = "http://127.0.0.1:" + port;
            awaitListening(node, data.resolve("node.log"), base);
            String token = Files.readString(data.resolve("security/admin.token")).trim();
            return run(base, token, data);
        } finally {
            node.destroy(); // SIGTERM: the node stops cleanly; its jobs were cancelled
            if (!node.waitFor(30, TimeUnit.SECONDS)) {
                LOG.warn("The node (pid {}) did not stop within 30 s of SIGTERM; killing it", node.pid());
                node.destroyForcibly();
            }
            if (keep) {
                LOG.info("Kept the node's data directory {}", data);
            } else {
                BenchmarkFiles.deleteRecursively(data);
            }
        }
    }

    private int run(String base, String token, Path data) throws Exception {
        JsonLines out = new JsonLines(json, stdout);
        List<Double> without = new ArrayList<>();
        List<Double> with = new ArrayList<>();
        List<Double> allLatencies = new ArrayList<>();
        int errors = 0;
        for (int round = 1; round <= warmupRounds + 2 * rounds; round++) {
            boolean warmupRound = round <= warmupRounds;
            boolean polling = !warmupRound && (round - warmupRounds) % 2 == 0;
            String jobId = submit(base, token, "rest-bench-" + round, data);
            awaitStatus(base, jobId, "RUNNING", 60);
            TimeUnit.SECONDS.sleep(warmupS);

            List<Double> latencies = Collections.synchronizedList(new ArrayList<>());
            AtomicInteger failedPolls = new AtomicInteger();
            ScheduledExecutorService poller = Executors.newSingleThreadScheduledExecutor(r -> {
                Thread t = new Thread(r, "checkpoints-poller");
                t.setDaemon(true);
                return t;
            });
            long[] first = sampleWritten(base, jobId);
            if (polling) {
                HttpRequest poll = HttpRequest.newBuilder(URI.create(base + "/jobs/" + jobId + "/checkpoints"))
                        .timeout(Duration.ofSeconds(10)).GET().build();
                poller.scheduleAtFixedRate(() -> {
                    long t0 = System.nanoTime();
                    try {
                        HttpResponse<String> r = http.send(poll, HttpResponse.BodyHandlers.ofString());
                        long t1 = System.nanoTime();
                        if (r.statusCode() == 200 && r.body().startsWith("{")) {
                            latencies.add((t1 - t0) / 1e6);
                        } else {
                            failedPolls.incrementAndGet();
                        }
                    } catch (IOException e) {
                        failedPolls.incrementAndGet();
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                }, 0, pollMs, TimeUnit.MILLISECONDS);
            }
            TimeUnit.SECONDS.sleep(roundS);
            poller.shutdownNow();
            poller.awaitTermination(15, TimeUnit.SECONDS);
            long[] last = sampleWritten(base, jobId);
            cancel(base, token, jobId);
            awaitStatus(base, jobId, "CANCELED", 60);

            double recordsPerS = (last[0] - first[0]) * 1e9 / (last[1] - first[1]);
            JsonObjectBuilder line = json.createObjectBuilder().add("type", "round").add("round", round)
                    .add("warmup", warmupRound).add("poller", polling).add("records_per_s", Math.round(recordsPerS))
                    .add("window_s", Math.round((last[1] - first[1]) / 1e7) / 100.0);
            if (polling) {
                List<Double> snapshot;
                synchronized (latencies) {
                    snapshot = List.copyOf(latencies);
                }
                allLatencies.addAll(snapshot);
                errors += failedPolls.get();
                line.add("polls", snapshot.size()).add("failed_polls", failedPolls.get())
                        .add("latency_ms", snapshot.isEmpty() ? JsonValue.NULL : percentiles(Percentiles.of(snapshot)));
                with.add(recordsPerS);
            } else if (!warmupRound) {
                without.add(recordsPerS);
            }
            out.write(line.add("load_average_1m", loadAverage()).build());
        }
        Spread w = Spread.of(without);
        Spread p = Spread.of(with);
        JsonObjectBuilder summary = json.createObjectBuilder().add("type", "summary")
                .add("node", "distribution bin/weir node (own process)")
                .add("rounds_per_mode", rounds).add("warmup_rounds", warmupRounds).add("round_s", roundS).add("poll_ms", pollMs)
                .add("records_per_s_without", spread(w))
                .add("records_per_s_with", spread(p))
                .add("throughput_ratio_with_to_without", Math.round(p.median() / w.median() * 1000) / 1000.0)
                .add("polls", allLatencies.size()).add("failed_polls", errors)
                .add("latency_ms", allLatencies.isEmpty() ? JsonValue.NULL : percentiles(Percentiles.of(allLatencies)))
                .add("load_average_1m", loadAverage());
        out.write(summary.build());
        return allLatencies.isEmpty() ? 1 : 0;
    }

    /** The throughput-16 pipeline of the checkpoint benchmark, with a {@code discard} sink (the node has no count-sink). */
    private String jobSpec(String name, Path data) {
        return json.createObjectBuilder()
                .add("name", name)
                .add("config", json.createObjectBuilder()
                        .add("execution.checkpointing.interval", "1000 ms")
                        .add("execution.checkpointing.mode", "EXACTLY_ONCE")
                        .add("execution.checkpointing.dir", data.resolve("checkpoints").toAbsolutePath().toString()))
                .add("operators", json.createArrayBuilder()
                        .add(json.createObjectBuilder().add("id", SOURCE).add("type", "datagen").add("parallelism", 2)
                                .add("config", json.createObjectBuilder().add("rate", 0).add("record-size", 100).add("keys", 16)))
                        .add(json.createObjectBuilder().add("id", "counter").add("type", "keyed-aggregate").add("parallelism", 2)
                                .add("inputs", json.createArrayBuilder().add(json.createObjectBuilder()
                                        .add("from", SOURCE).add("partitioning", "hash").add("keys", json.createArrayBuilder().add("key"))))
                                .add("config", json.createObjectBuilder().add("key", json.createArrayBuilder().add("key"))
                                        .add("aggregates", json.createArrayBuilder().add(json.createObjectBuilder().add("fn", "count").add("as", "count")))))
                        .add(json.createObjectBuilder().add("id", "sink").add("type", "discard").add("parallelism", 2)
                                .add("inputs", json.createArrayBuilder().add(json.createObjectBuilder()
                                        .add("from", "counter").add("partitioning", "forward")))))
                .build().toString();
    }

    private String submit(String base, String token, String name, Path data) throws IOException, InterruptedException {
        HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(base + "/jobs"))
                .header("Authorization", "Bearer " + token).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(jobSpec(name, data))).build(), HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() != 202) {
            throw new IllegalStateException("POST /jobs for " + name + " answered " + r.statusCode() + ": " + r.body());
        }
        return parse(r.body()).getString("jobid");
    }

    private void cancel(String base, String token, String jobId) throws IOException, InterruptedException {
        HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(base + "/jobs/" + jobId + "?mode=cancel"))
                .header("Authorization", "Bearer " + token).method("PATCH", HttpRequest.BodyPublishers.noBody()).build(),
                HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() / 100 != 2) {
            throw new IllegalStateException("PATCH /jobs/" + jobId + "?mode=cancel answered " + r.statusCode() + ": " + r.body());
        }
    }

    /** @return {write-records of the source vertex, System.nanoTime() halfway through the request} */
    private long[] sampleWritten(String base, String jobId) throws IOException, InterruptedException {
        long t0 = System.nanoTime();
        JsonObject job = get(base + "/jobs/" + jobId);
        long t1 = System.nanoTime();
        JsonArray vertices = job.getJsonArray("vertices");
        for (JsonValue v : vertices) {
            JsonObject vertex = v.asJsonObject();
            if (SOURCE.equals(vertex.getString("id"))) {
                return new long[] {vertex.getJsonObject("metrics").getJsonNumber("write-records").longValue(), t0 + (t1 - t0) / 2};
            }
        }
        throw new IllegalStateException("job " + jobId + " has no vertex '" + SOURCE + "': " + job);
    }

    private void awaitStatus(String base, String jobId, String status, int timeoutS) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(timeoutS);
        String now = null;
        while (System.nanoTime() < deadline) {
            now = get(base + "/jobs/" + jobId).getString("state");
            if (now.equals(status)) {
                return;
            }
            if (List.of("FAILED", "FINISHED", "CANCELED").contains(now)) {
                break;
            }
            TimeUnit.MILLISECONDS.sleep(50);
        }
        throw new IllegalStateException("job " + jobId + " is " + now + ", expected " + status + " within " + timeoutS + " s");
    }

    private JsonObject get(String url) throws IOException, InterruptedException {
        HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(10)).GET().build(),
                HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() != 200) {
            throw new IllegalStateException("GET " + url + " answered " + r.statusCode() + ": " + r.body());
        }
        return parse(r.body());
    }

    private JsonObject parse(String body) {
        try (var reader = json.createReader(new StringReader(body))) {
            return reader.readObject();
        }
    }

    private Process startNode(Path data, int port) throws IOException {
        Path log = data.resolve("node.log");
        ProcessBuilder pb = new ProcessBuilder(weir.toAbsolutePath().toString(), "node", "--port", String.valueOf(port),
                "--data-dir", data.toString())
                .redirectErrorStream(true).redirectOutput(log.toFile());
        LOG.info("Starting {} node --port {} --data-dir {}", weir, port, data);
        return pb.start();
    }

    /** Waits for the node's "listening" line and for GET /overview to answer. */
    private void awaitListening(Process node, Path log, String base) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
        while (System.nanoTime() < deadline) {
            if (!node.isAlive()) {
                throw new IllegalStateException("the node exited with " + node.exitValue() + " before it listened; its output:\n"
                        + Files.readString(log));
            }
            if (Files.exists(log) && Files.readString(log).contains("Weir node listening on")) {
                get(base + "/overview");
                return;
            }
            TimeUnit.MILLISECONDS.sleep(100);
        }
        throw new IllegalStateException("the node did not listen within 120 s; its output is in " + log);
    }

    private JsonObject spread(Spread s) {
        return json.createObjectBuilder().add("median", Math.round(s.median())).add("min", Math.round(s.min()))
                .add("max", Math.round(s.max())).add("spread_percent", s.spreadPercent()).build();
    }

    private JsonObject percentiles(Percentiles p) {
        return json.createObjectBuilder().add("p50", round2(p.p50())).add("p99", round2(p.p99())).add("max", round2(p.max())).build();
    }

    private static double round2(double v) {
        return Math.round(v * 100) / 100.0;
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    private static double loadAverage() {
        return Math.round(ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage() * 100) / 100.0;
    }

}
