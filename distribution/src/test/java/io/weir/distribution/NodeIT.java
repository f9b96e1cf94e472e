package io.weir.distribution;

import jakarta.json.Json;
import jakarta.json.JsonNumber;
import jakarta.json.JsonObject;
import jakarta.json.JsonReader;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.BufferedWriter;
import java.io.IOException;
import java.io.StringReader;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.LongStream;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.offset;
import static org.awaitility.Awaitility.await;

/**
 * Starts {@code bin/weir node} from the built distribution as its own process and drives it only
 * through the CLI ({@code weir submit|list|cancel}) and REST: two jobs submitted at once, listed,
 * one cancelled while the other finishes with its output committed exactly once (checked against a
 * ground truth computed here); a mutation without a token and with a bad token refused; a second
 * node on the same port refused with one line; a client of a node that is not running told so in
 * one line. The node is stopped (SIGTERM, then SIGKILL) even when an assertion fails.
 */
class NodeIT {
    private static final Logger LOG = LoggerFactory.getLogger(NodeIT.class);
    private static final Path HOME = Path.of(System.getProperty("weir.home", "target/weir")).toAbsolutePath();
    private static final Path WEIR = HOME.resolve("bin/weir");
    private static final int ORIGINS = 20;
    private static final long SEED = 7_2026_12_01L;

    @TempDir
    Path work;

    private final List<Process> started = new ArrayList<>();
    private final HttpClient http = HttpClient.newHttpClient();

    /** What a finished {@code bin/weir} process left behind. */
    record Run(int exitCode, String out, String err) {
        @Override
        public String toString() {
            return "exit " + exitCode + "\n--- stdout ---\n" + out + "\n--- stderr ---\n" + err;
        }
    }

    /** Expected aggregate of one origin: record count and sum of {@code delay}. */
    record Truth(long count, long delaySum) {
    }

    @AfterEach
    void stopEverything() throws InterruptedException {
        for (Process p : started) {
            stop(p);
        }
    }

    @Test
    void nodeRunsTwoJobsAtOnceCancelsOneAndTheOtherCommitsExactlyOnce() throws Exception {
        int port = freePort();
        String url = "http://127.0.0.1:" + port;
        Path data = work.resolve("data");
        Process node = startNode(port, data, "node");
        awaitListening(node, port);
        assertThat(Files.readString(data.resolve("security/admin.token")).strip()).as("admin token").isNotEmpty();

        // one long job to cancel, one that finishes; submitted at once
        Path cancelInput = work.resolve("to-cancel.jsonl");
        writeFlights(cancelInput, 60_000);
        Path cancelJob = writeJob("to-cancel", cancelInput, work.resolve("cp"), work.resolve("out-cancel"), 1);
        Path finishInput = work.resolve("to-finish.jsonl");
        Map<String, Truth> truth = writeFlights(finishInput, 6_000);
        Path finishOut = work.resolve("out-finish");
        Path finishJob = writeJob("to-finish", finishInput, work.resolve("cp"), finishOut, 1);

        Process submitA = weirAsync("submitA", "submit", cancelJob.toString(), "--node", url, "--data-dir", data.toString());
        Process submitB = weirAsync("submitB", "submit", finishJob.toString(), "--node", url, "--data-dir", data.toString(),
                "--set", "execution.checkpointing.interval=100 ms");
        Run a = finish(submitA, "submitA");
        Run b = finish(submitB, "submitB");
        assertThat(a.exitCode()).as(a.toString()).isZero();
        assertThat(a.out()).as(a.toString()).containsPattern("Submitted job to-cancel as [0-9a-f]{32} to " + url);
        assertThat(b.exitCode()).as(b.toString()).isZero();
        assertThat(b.out()).as(b.toString()).containsPattern("Submitted job to-finish as [0-9a-f]{32}");

        Run list = weir("list", "--node", url);
        assertThat(list.exitCode()).as(list.toString()).isZero();
        assertThat(list.out()).as(list.toString()).contains("to-cancel").contains("to-finish").contains("RUNNING")
                .startsWith("ID ");

        // a second submit of a running name: 409 through the CLI, exit 1
        Run again = weir("submit", cancelJob.toString(), "--node", url, "--data-dir", data.toString());
        assertThat(again.exitCode()).as(again.toString()).isEqualTo(1);
        assertThat(again.err()).as(again.toString()).contains("'to-cancel' is already RUNNING");

        // mutations without a token, or with a bad one, are refused
        HttpResponse<String> noToken = http.send(HttpRequest.newBuilder(URI.create(url + "/jobs/to-cancel?mode=cancel"))
                .method("PATCH", HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(noToken.statusCode()).isEqualTo(401);
        assertThat(json(noToken.body()).getJsonArray("errors").getString(0)).contains(data.resolve("security/admin.token").toString());
        Path badToken = Files.writeString(work.resolve("bad.token"), "eyJhbGciOiJSUzI1NiJ9.e30.c2ln");
        Run refused = weir("cancel", "to-cancel", "--node", url, "--token-file", badToken.toString());
        assertThat(refused.exitCode()).as(refused.toString()).isEqualTo(1);
        assertThat(refused.err()).as(refused.toString()).contains("rejected").doesNotContain("eyJhbGciOiJSUzI1NiJ9.e30.c2ln");
        Run noTokenFile = weir("cancel", "to-cancel", "--node", url, "--token-file", work.resolve("missing.token").toString());
        assertThat(noTokenFile.exitCode()).isEqualTo(1);
        assertThat(noTokenFile.err()).as(noTokenFile.toString()).contains("no token file at").contains("security/admin.token");
        assertThat(state(url, "to-cancel")).as("refused cancels changed nothing").isEqualTo("RUNNING");

        // cancel one: the other keeps running and finishes
        Run cancel = weir("cancel", "to-cancel", "--node", url, "--data-dir", data.toString());
        assertThat(cancel.exitCode()).as(cancel.toString()).isZero();
        assertThat(cancel.out()).as(cancel.toString()).contains("Job to-cancel CANCELED");

        await("to-finish FINISHED").atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(200))
                .until(() -> state(url, "to-finish"), s -> s.equals("FINISHED") || s.equals("FAILED") || s.equals("CANCELED"));
        assertThat(state(url, "to-finish")).isEqualTo("FINISHED");
        assertThat(state(url, "to-cancel")).isEqualTo("CANCELED");
        assertExactlyOnce(finishOut, truth);

        JsonObject checkpoints = get(url + "/jobs/to-finish/checkpoints");
        assertThat(checkpoints.getJsonObject("counts").getInt("completed")).isPositive();
        assertThat(checkpoints.getJsonObject("latest").getJsonObject("completed").getBoolean("is_final")).isTrue();
        JsonObject overview = get(url + "/overview");
        assertThat(overview.getInt("jobs-finished")).isEqualTo(1);
        assertThat(overview.getInt("jobs-cancelled")).isEqualTo(1);
        LOG.info("Node on port {}: to-finish committed {} rows exactly once; to-cancel cancelled", port, rows(finishOut).size());

        // SIGTERM stops the node cleanly
        node.destroy();
        assertThat(node.waitFor(20, TimeUnit.SECONDS)).as("node stopped within 20 s of SIGTERM").isTrue();
    }

    @Test
    void checkpointSavepointAndStopThroughTheCliThenARunFromTheSavepointCommitsExactlyOnce() throws Exception {
        int port = freePort();
        String url = "http://127.0.0.1:" + port;
        Path data = work.resolve("data");
        Process node = startNode(port, data, "node");
        awaitListening(node, port);
        Path input = work.resolve("sp.jsonl");
        Map<String, Truth> truth = writeFlights(input, 40_000);
        Path out = work.resolve("out-sp");
        Path job = writeJob("to-stop", input, work.resolve("cp"), out, 1);
        Run submit = weir("submit", job.toString(), "--node", url, "--data-dir", data.toString());
        assertThat(submit.exitCode()).as(submit.toString()).isZero();

        Run checkpoint = weir("checkpoint", "to-stop", "--node", url, "--data-dir", data.toString());
        assertThat(checkpoint.exitCode()).as(checkpoint.toString()).isZero();
        assertThat(checkpoint.out()).as(checkpoint.toString()).containsPattern("Checkpoint \\d+ of job to-stop completed");

        Run savepoint = weir("savepoint", "to-stop", "nightly", "--node", url, "--data-dir", data.toString());
        assertThat(savepoint.exitCode()).as(savepoint.toString()).isZero();
        Path taken = savepointPath(savepoint, "Savepoint of job to-stop completed: ");
        assertThat(taken.getParent()).isEqualTo(data.resolve("savepoints/nightly"));
        assertThat(taken.resolve("_metadata")).isRegularFile();

        // a target outside the node's savepoint directory, and a mutation without a token, are refused
        Run outside = weir("savepoint", "to-stop", work.resolve("elsewhere").toString(), "--node", url, "--data-dir", data.toString());
        assertThat(outside.exitCode()).as(outside.toString()).isEqualTo(1);
        assertThat(outside.err()).as(outside.toString()).contains("outside the node's savepoint directory " + data.resolve("savepoints"));
        HttpResponse<String> noToken = http.send(HttpRequest.newBuilder(URI.create(url + "/jobs/to-stop/savepoints"))
                .POST(HttpRequest.BodyPublishers.ofString("{}")).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(noToken.statusCode()).isEqualTo(401);
        assertThat(state(url, "to-stop")).as("the job still runs (stop before its input ends)").isEqualTo("RUNNING");

        Run stop = weir("stop", "to-stop", "--node", url, "--data-dir", data.toString());
        assertThat(stop.exitCode()).as(stop.toString()).isZero();
        Path last = savepointPath(stop, "Job to-stop stopped with savepoint ");
        assertThat(last.getParent()).isEqualTo(data.resolve("savepoints"));
        assertThat(state(url, "to-stop")).isEqualTo("FINISHED");
        Run stopAgain = weir("stop", "to-stop", "--node", url, "--data-dir", data.toString());
        assertThat(stopAgain.exitCode()).as(stopAgain.toString()).isEqualTo(1);
        assertThat(stopAgain.err()).as(stopAgain.toString()).contains("FINISHED, not RUNNING");

        // the rest of the input, submitted again from the final savepoint: every update committed once overall
        Run resume = weir("submit", job.toString(), "--from-savepoint", last.toString(), "--node", url, "--data-dir", data.toString());
        assertThat(resume.exitCode()).as(resume.toString()).isZero();
        await("to-stop resumed and FINISHED").atMost(Duration.ofSeconds(120)).pollInterval(Duration.ofMillis(200))
                .until(() -> get(url + "/jobs/overview").getJsonArray("jobs").stream().map(j -> j.asJsonObject().getString("state"))
                        .filter(st -> !st.equals("FINISHED")).toList(), List::isEmpty);
        assertThat(get(url + "/jobs/overview").getJsonArray("jobs")).hasSize(2);
        assertExactlyOnce(out, truth);
        LOG.info("Node on port {}: stopped with {}, resumed by weir submit --from-savepoint; {} rows committed exactly once", port, last, rows(out).size());
    }

    /** The absolute savepoint directory a CLI run printed after {@code prefix}; it exists. */
    private static Path savepointPath(Run run, String prefix) {
        String line = run.out().lines().filter(l -> l.contains(prefix)).findFirst()
                .orElseThrow(() -> new AssertionError("no '" + prefix + "' in " + run));
        Path path = Path.of(line.substring(line.indexOf(prefix) + prefix.length()).strip());
        assertThat(path).as(run.toString()).isAbsolute().isDirectory();
        return path;
    }

    @Test
    void aSecondNodeOnTheSamePortAndAClientWithoutANodeGetOneLine() throws Exception {
        int port = freePort();
        Process node = startNode(port, work.resolve("data"), "node");
        awaitListening(node, port);

        Run second = weir("node", "--port", String.valueOf(port), "--data-dir", work.resolve("data2").toString());

        assertThat(second.exitCode()).as(second.toString()).isEqualTo(1);
        assertThat(second.err().strip()).as(second.toString())
                .isEqualTo("error: port " + port + " on 127.0.0.1 is in use (another weir node or program listens there);"
                        + " stop it or start with --port N");

        int nobody = freePort();
        Run list = weir("list", "--node", "http://127.0.0.1:" + nobody);
        assertThat(list.exitCode()).as(list.toString()).isEqualTo(1);
        assertThat(list.err().strip()).as(list.toString()).startsWith("error: no Weir node is running at http://127.0.0.1:" + nobody)
                .doesNotContain("\n").doesNotContain("Exception");
    }

    @Test
    void aKilledOrStoppedNodeResumesItsRunningJobWithTheSameIdAndItCommitsExactlyOnce() throws Exception {
        int port = freePort();
        String url = "http://127.0.0.1:" + port;
        Path data = work.resolve("data");
        Process node = startNode(port, data, "node");
        awaitListening(node, port, "node");

        Path input = work.resolve("slow.jsonl");
        Map<String, Truth> truth = writeFlights(input, 16_000);
        Path out = work.resolve("out-slow");
        Path job = writeJob("slow", input, work.resolve("cp"), out, 3); // ~24 s of work: it runs through both restarts
        Run submit = weir("submit", job.toString(), "--node", url, "--data-dir", data.toString());
        assertThat(submit.exitCode()).as(submit.toString()).isZero();
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("as ([0-9a-f]{32})").matcher(submit.out());
        assertThat(m.find()).as(submit.toString()).isTrue();
        String id = m.group(1);
        Path record = data.resolve("jobs").resolve(id).resolve("job.json");
        awaitCheckpoint(url, id);

        // kill -9 the node's whole process tree: the registry still says RUNNING
        WeirProcesses.killWithDescendants(node);
        assertThat(json(Files.readString(record)).getString("status")).isEqualTo("RUNNING");

        Process second = startNode(port, data, "node2");
        awaitListening(second, port, "node2");
        await("job " + id + " resumed").atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(200))
                .until(() -> get(url + "/jobs").getJsonArray("jobs").stream().map(v -> v.asJsonObject())
                        .anyMatch(j -> j.getString("id").equals(id)));
        assertThat(get(url + "/jobs/" + id).getString("state")).as("resumed with the same id").isIn("RUNNING", "FINISHED");
        await("job " + id + " restored from its checkpoint").atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(100))
                .until(() -> get(url + "/jobs/" + id + "/checkpoints").getJsonObject("counts").getJsonNumber("restored").longValue() > 0);
        awaitCheckpoint(url, id);

        // SIGTERM: a clean stop suspends the job; the registry says SUSPENDED
        second.destroy();
        assertThat(second.waitFor(20, TimeUnit.SECONDS)).as("node stopped within 20 s of SIGTERM").isTrue();
        assertThat(json(Files.readString(record)).getString("status")).isEqualTo("SUSPENDED");

        Process third = startNode(port, data, "node3");
        awaitListening(third, port, "node3");
        await("job " + id + " FINISHED").atMost(Duration.ofSeconds(120)).pollInterval(Duration.ofMillis(200))
                .until(() -> get(url + "/jobs").getJsonArray("jobs").stream().map(v -> v.asJsonObject())
                        .anyMatch(j -> j.getString("id").equals(id) && List.of("FINISHED", "FAILED", "CANCELED").contains(j.getString("status"))));
        assertThat(state(url, id)).isEqualTo("FINISHED");
        assertThat(json(Files.readString(record)).getString("status")).isEqualTo("FINISHED");
        assertExactlyOnce(out, truth);
        LOG.info("Job {} survived kill -9 and SIGTERM of its node; {} rows committed exactly once", id, rows(out).size());
    }

    @Test
    void infoShowsOperatorsAndTheLatestCheckpointTableAndTheDetailEndpointsAnswer() throws Exception {
        int port = freePort();
        String url = "http://127.0.0.1:" + port;
        Path data = work.resolve("data");
        Process node = startNode(port, data, "node");
        awaitListening(node, port);
        Path input = work.resolve("info.jsonl");
        writeFlights(input, 60_000);
        Path job = writeJob("info-demo", input, work.resolve("cp"), work.resolve("out-info"), 1);
        Run submit = weir("submit", job.toString(), "--node", url, "--data-dir", data.toString());
        assertThat(submit.exitCode()).as(submit.toString()).isZero();
        awaitCheckpoint(url, "info-demo");

        Run info = weir("info", "info-demo", "--node", url);

        assertThat(info.exitCode()).as(info.toString()).isZero();
        assertThat(info.out()).as(info.toString()).containsPattern("Job info-demo \\([0-9a-f]{32}\\)")
                .contains("Status: RUNNING, up ")
                .containsPattern("flights +file +source +1  -")
                .containsPattern("per-origin +keyed-aggregate +operator +2  flights")
                .containsPattern("Checkpoint [0-9]+: [0-9]+ bytes, [0-9]+ ms end to end; per subtask")
                .contains("vertex      subtask  start_delay")
                .containsPattern("(?m)^flights +0 ")
                .containsPattern("(?m)^per-origin +1 ");
        long cid = get(url + "/jobs/info-demo/checkpoints").getJsonObject("latest").getJsonObject("completed").getJsonNumber("id").longValue();
        JsonObject details = get(url + "/jobs/info-demo/checkpoints/details/" + cid);
        assertThat(details.getJsonObject("tasks").keySet()).contains("flights", "per-origin");
        assertThat(get(url + "/jobs/info-demo/checkpoints/details/" + cid + "/subtasks/per-origin").getJsonArray("subtasks")).hasSize(2);
        assertThat(get(url + "/jobs/info-demo/checkpoints/config").getJsonNumber("interval").longValue()).isEqualTo(100);
        assertThat(get(url + "/jobs/info-demo/exceptions").getJsonObject("exceptionHistory").getJsonArray("entries")).isEmpty();
        assertThat(get(url + "/openapi.json").getString("openapi")).startsWith("3.");
        Run unknown = weir("info", "nope", "--node", url);
        assertThat(unknown.exitCode()).as(unknown.toString()).isEqualTo(1);
        assertThat(unknown.err()).as(unknown.toString()).contains("'nope'");
    }

    private void awaitCheckpoint(String url, String id) {
        await("a checkpoint of " + id).atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(100))
                .until(() -> get(url + "/jobs/" + id + "/checkpoints").getJsonObject("counts").getInt("completed") > 0);
    }

    private Process startNode(int port, Path data, String name) throws IOException {
        Process p = new ProcessBuilder(WEIR.toString(), "node", "--port", String.valueOf(port), "--data-dir", data.toString())
                .directory(work.toFile()).redirectOutput(work.resolve(name + "-stdout.txt").toFile())
                .redirectError(work.resolve(name + "-stderr.txt").toFile()).redirectInput(ProcessBuilder.Redirect.PIPE).start();
        p.getOutputStream().close();
        started.add(p);
        return p;
    }

    private void awaitListening(Process node, int port) throws IOException {
        awaitListening(node, port, "node");
    }

    private void awaitListening(Process node, int port, String name) throws IOException {
        Path stdout = work.resolve(name + "-stdout.txt");
        await("node listening on " + port).atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(100))
                .until(() -> !node.isAlive() || Files.readString(stdout).contains("Weir node listening on http://127.0.0.1:" + port));
        assertThat(node.isAlive()).as("node died: %s %s", Files.readString(stdout),
                Files.readString(work.resolve(name + "-stderr.txt"))).isTrue();
    }

    private Process weirAsync(String name, String... args) throws IOException {
        List<String> command = new ArrayList<>();
        command.add(WEIR.toString());
        command.addAll(List.of(args));
        Process p = new ProcessBuilder(command).directory(work.toFile()).redirectOutput(work.resolve(name + "-stdout.txt").toFile())
                .redirectError(work.resolve(name + "-stderr.txt").toFile()).redirectInput(ProcessBuilder.Redirect.PIPE).start();
        p.getOutputStream().close();
        started.add(p);
        return p;
    }

    private Run finish(Process p, String name) throws IOException, InterruptedException {
        if (!p.waitFor(60, TimeUnit.SECONDS)) {
            throw new AssertionError("bin/weir " + name + " did not end within 60 s");
        }
        return new Run(p.exitValue(), Files.readString(work.resolve(name + "-stdout.txt")), Files.readString(work.resolve(name + "-stderr.txt")));
    }

    private int runs;

    private Run weir(String... args) throws IOException, InterruptedException {
        String name = "cli-" + (++runs);
        return finish(weirAsync(name, args), name);
    }

    private JsonObject get(String url) throws IOException, InterruptedException {
        HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(url)).GET().build(), HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).as("GET %s: %s", url, r.body()).isEqualTo(200);
        return json(r.body());
    }

    private String state(String url, String job) throws IOException, InterruptedException {
        return get(url + "/jobs/" + job).getString("state");
    }

    private static JsonObject json(String text) {
        try (JsonReader r = Json.createReader(new StringReader(text))) {
            return r.readObject();
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
            return s.getLocalPort();
        }
    }

    /** SIGTERM, then SIGKILL after 15 s, to the process and its descendants. */
    private static void stop(Process p) throws InterruptedException {
        List<ProcessHandle> all = new ArrayList<>(p.descendants().toList());
        p.destroy();
        if (!p.waitFor(15, TimeUnit.SECONDS)) {
            all.forEach(ProcessHandle::destroyForcibly);
            p.destroyForcibly();
            p.waitFor(10, TimeUnit.SECONDS);
        }
    }

    /** Writes {@code records} JSON-lines flights from {@link #SEED}; returns per-origin count and delay sum. */
    private static Map<String, Truth> writeFlights(Path file, int records) throws IOException {
        Random random = new Random(SEED + records);
        Map<String, Truth> truth = new TreeMap<>();
        try (BufferedWriter w = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
            for (int i = 0; i < records; i++) {
                String origin = "A" + (char) ('A' + random.nextInt(ORIGINS));
                long delay = -30 + random.nextInt(331);
                w.write(Json.createObjectBuilder().add("date", "2001/01/01 00:00").add("delay", delay).add("distance", 100)
                        .add("origin", origin).add("destination", "ZZZ").build().toString());
                w.write('\n');
                truth.merge(origin, new Truth(1, delay), (x, y) -> new Truth(x.count() + 1, x.delaySum() + y.delaySum()));
            }
        }
        return truth;
    }

    /** The flight-delays job on {@code input}, throttled by {@code sleepMs} per record, checkpointing every 100 ms. */
    private static Path writeJob(String name, Path input, Path checkpoints, Path out, int sleepMs) throws IOException {
        JsonObject job = Json.createObjectBuilder()
                .add("name", name)
                .add("config", Json.createObjectBuilder()
                        .add("execution.checkpointing.interval", "100 ms")
                        .add("execution.checkpointing.dir", checkpoints.toString()))
                .add("operators", Json.createArrayBuilder()
                        .add(Json.createObjectBuilder().add("id", "flights").add("type", "file").add("parallelism", 1)
                                .add("config", Json.createObjectBuilder().add("path", input.getFileName().toString()).add("format", "lines")
                                        .add("schema", Json.createObjectBuilder().add("date", "string").add("delay", "long")
                                                .add("distance", "long").add("origin", "string").add("destination", "string"))))
                        .add(Json.createObjectBuilder().add("id", "per-origin").add("type", "keyed-aggregate").add("parallelism", 2)
                                .add("inputs", Json.createArrayBuilder().add(Json.createObjectBuilder().add("from", "flights")
                                        .add("partitioning", "hash").add("keys", Json.createArrayBuilder().add("origin"))))
                                .add("config", Json.createObjectBuilder()
                                        .add("key", Json.createArrayBuilder().add("origin"))
                                        .add("aggregates", Json.createArrayBuilder()
                                                .add(Json.createObjectBuilder().add("fn", "count").add("as", "flights"))
                                                .add(Json.createObjectBuilder().add("fn", "avg").add("field", "delay").add("as", "avg_delay")))
                                        .add("sleep-ms-per-record", sleepMs)))
                        .add(Json.createObjectBuilder().add("id", "out").add("type", "file-2pc").add("parallelism", 2)
                                .add("inputs", Json.createArrayBuilder().add("per-origin"))
                                .add("config", Json.createObjectBuilder().add("path", out.toString()))))
                .build();
        Path file = input.resolveSibling(name + ".json");
        Files.writeString(file, job.toString(), StandardCharsets.UTF_8);
        return file;
    }

    /** Every update per origin committed once: counts 1..N each once, the last average = sum / N; nothing in progress. */
    private static void assertExactlyOnce(Path out, Map<String, Truth> truth) throws IOException {
        try (Stream<Path> files = Files.list(out)) {
            assertThat(files.map(p -> p.getFileName().toString()).filter(n -> n.endsWith(".inprogress")))
                    .as("in-progress files left in %s", out).isEmpty();
        }
        Map<String, List<JsonObject>> byOrigin = rows(out).stream()
                .collect(Collectors.groupingBy(r -> r.getString("origin"), TreeMap::new, Collectors.toList()));
        assertThat(byOrigin.keySet()).as("origins in the committed output").isEqualTo(truth.keySet());
        for (Map.Entry<String, Truth> e : truth.entrySet()) {
            Truth t = e.getValue();
            List<Long> counts = byOrigin.get(e.getKey()).stream().map(r -> r.getJsonNumber("flights").longValueExact()).sorted().toList();
            assertThat(counts).as("'flights' values committed for origin %s (1..%d, each once)", e.getKey(), t.count())
                    .containsExactlyElementsOf(LongStream.rangeClosed(1, t.count()).boxed().toList());
            JsonObject last = byOrigin.get(e.getKey()).stream()
                    .filter(r -> r.getJsonNumber("flights").longValueExact() == t.count()).findFirst().orElseThrow();
            JsonNumber avg = last.getJsonNumber("avg_delay");
            assertThat(avg.doubleValue()).as("avg_delay of %s", e.getKey()).isCloseTo((double) t.delaySum() / t.count(), offset(1e-9));
        }
    }

    private static List<JsonObject> rows(Path out) throws IOException {
        List<JsonObject> rows = new ArrayList<>();
        try (Stream<Path> files = Files.list(out)) {
            for (Path file : files.filter(p -> p.getFileName().toString().startsWith("part-")
                    && p.getFileName().toString().endsWith(".jsonl")).sorted().toList()) {
                for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
                    if (!line.isBlank()) {
                        rows.add(json(line));
                    }
                }
            }
        }
        return rows;
    }
}
