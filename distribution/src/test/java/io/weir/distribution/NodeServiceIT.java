package io.weir.distribution;

import jakarta.json.Json;
import jakarta.json.JsonObject;
import jakarta.json.JsonReader;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

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
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * {@code bin/weir node start|stop|status} from the built distribution: a background node is started, reported,
 * given a job, stopped (its job is SUSPENDED in the registry), reported not running (exit 3), started again (the
 * job resumes with the same id from its checkpoint) and stopped; a second start while it runs is refused; a node
 * killed with {@code kill -9} leaves a stale pid file that status recognises and start replaces; a start whose port
 * is taken prints the node's own error line and exits 1. Every node started here is killed afterwards, also when an
 * assertion fails (the background node is no child of the test: it is found through its pid file).
 */
class NodeServiceIT {
    private static final Logger LOG = LoggerFactory.getLogger(NodeServiceIT.class);
    private static final Path HOME = Path.of(System.getProperty("weir.home", "target/weir")).toAbsolutePath();
    private static final Path WEIR = HOME.resolve("bin/weir");

    @TempDir
    Path work;

    private final List<Path> dataDirs = new ArrayList<>();
    private final HttpClient http = HttpClient.newHttpClient();
    private int runs;

    /** What a finished {@code bin/weir} process left behind. */
    record Run(int exitCode, String out, String err) {
        @Override
        public String toString() {
            return "exit " + exitCode + "\n--- stdout ---\n" + out + "\n--- stderr ---\n" + err;
        }
    }

    @AfterEach
    void killNodes() throws InterruptedException {
        for (Path data : dataDirs) {
            Optional<ProcessHandle> node = nodeProcess(data);
            if (node.isPresent()) {
                LOG.warn("Killing node pid {} of {} left running by the test", node.get().pid(), data);
                node.get().descendants().forEach(ProcessHandle::destroyForcibly);
                node.get().destroyForcibly();
                try {
                    node.get().onExit().get(10, TimeUnit.SECONDS);
                } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
                    LOG.error("Node pid {} did not die within 10 s of SIGKILL", node.get().pid());
                }
            }
        }
    }

    @Test
    void startStatusSubmitStopStatusStartResumesTheJobWithTheSameIdAndAKilledNodeLeavesAStalePidFile() throws Exception {
        int port = freePort();
        String url = "http://127.0.0.1:" + port;
        Path data = dataDir("data");

        Run start = weir("node", "start", "--port", String.valueOf(port), "--data-dir", data.toString());
        assertThat(start.exitCode()).as(start.toString()).isZero();
        assertThat(start.out()).as(start.toString()).startsWith("Weir node listening on " + url + " (pid ")
                .contains("log " + data.resolve("log/node.log"));
        long pid = pidOf(data);
        assertThat(start.out()).contains("(pid " + pid + ",");
        assertThat(Files.readString(data.resolve("log/node.log"))).contains("Weir node listening on " + url);

        Run status = weir("node", "status", "--data-dir", data.toString());
        assertThat(status.exitCode()).as(status.toString()).isZero();
        assertThat(status.out()).as(status.toString()).startsWith("Weir node is running: pid " + pid + ", " + url + ", up ")
                .contains("jobs: 0 running");

        // a second start on the same data directory: one line, exit 1, the first node untouched
        Run twice = weir("node", "start", "--port", String.valueOf(freePort()), "--data-dir", data.toString());
        assertThat(twice.exitCode()).as(twice.toString()).isEqualTo(1);
        assertThat(twice.err().strip()).as(twice.toString()).isEqualTo("error: a Weir node is already running with data directory "
                + data + " (pid " + pid + ", " + url + "); stop it with 'weir node stop --data-dir " + data + "'");

        Run submit = weir("submit", writeJob().toString(), "--node", url, "--data-dir", data.toString());
        assertThat(submit.exitCode()).as(submit.toString()).isZero();
        Matcher m = Pattern.compile("as ([0-9a-f]{32})").matcher(submit.out());
        assertThat(m.find()).as(submit.toString()).isTrue();
        String id = m.group(1);
        awaitCheckpoint(url, id);

        Run stop = weir("node", "stop", "--data-dir", data.toString());
        assertThat(stop.exitCode()).as(stop.toString()).isZero();
        assertThat(stop.out()).as(stop.toString()).contains("Weir node pid " + pid + " stopped");
        assertThat(ProcessHandle.of(pid).filter(ProcessHandle::isAlive)).as("node process ended").isEmpty();
        assertThat(data.resolve("node.pid")).doesNotExist();
        assertThat(json(Files.readString(data.resolve("jobs").resolve(id).resolve("job.json"))).getString("status"))
                .as("a clean stop suspends the job").isEqualTo("SUSPENDED");

        Run stopped = weir("node", "status", "--data-dir", data.toString());
        assertThat(stopped.exitCode()).as(stopped.toString()).isEqualTo(3);
        assertThat(stopped.out()).as(stopped.toString()).contains("Weir node is not running");

        Run again = weir("node", "start", "--port", String.valueOf(port), "--data-dir", data.toString());
        assertThat(again.exitCode()).as(again.toString()).isZero();
        long pid2 = pidOf(data);
        await("job " + id + " resumed from its checkpoint").atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(200))
                .until(() -> get(url + "/jobs/" + id + "/checkpoints").getJsonObject("counts").getJsonNumber("restored").longValue() > 0);
        assertThat(get(url + "/jobs/" + id).getString("state")).as("resumed with the same id").isEqualTo("RUNNING");

        // kill -9: the pid file stays behind, status calls it stale, start replaces it
        ProcessHandle node = ProcessHandle.of(pid2).orElseThrow();
        node.destroyForcibly();
        node.onExit().get(10, TimeUnit.SECONDS);
        assertThat(data.resolve("node.pid")).exists();
        Run stale = weir("node", "status", "--data-dir", data.toString());
        assertThat(stale.exitCode()).as(stale.toString()).isEqualTo(3);
        assertThat(stale.out()).as(stale.toString()).contains("is stale (pid " + pid2);

        Run third = weir("node", "start", "--port", String.valueOf(port), "--data-dir", data.toString());
        assertThat(third.exitCode()).as(third.toString()).isZero();
        assertThat(pidOf(data)).isNotEqualTo(pid2);
        await("job " + id + " resumed after kill -9").atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(200))
                .until(() -> get(url + "/jobs/" + id).getString("state").equals("RUNNING"));

        Run last = weir("node", "stop", "--data-dir", data.toString());
        assertThat(last.exitCode()).as(last.toString()).isZero();
        assertThat(data.resolve("node.pid")).doesNotExist();
        LOG.info("Background node: started, stopped and restarted twice (once after kill -9); job {} resumed with its id each time", id);
    }

    @Test
    void aStartWhosePortIsTakenPrintsTheNodesOwnErrorLineAndTheEndOfItsLog() throws Exception {
        Path data = dataDir("data-busy");
        try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
            int port = taken.getLocalPort();

            Run start = weir("node", "start", "--port", String.valueOf(port), "--data-dir", data.toString());

            assertThat(start.exitCode()).as(start.toString()).isEqualTo(1);
            List<String> lines = start.err().lines().toList();
            assertThat(lines.get(0)).as(start.toString()).isEqualTo("error: port " + port + " on 127.0.0.1 is in use (another weir node "
                    + "or program listens there); stop it or start with --port N");
            assertThat(lines.get(1)).as(start.toString()).contains("exited during start with code 1; the end of its log "
                    + data.resolve("log/node.log"));
            assertThat(data.resolve("node.pid")).as("a refused node leaves no pid file").doesNotExist();
        }
    }

    private Path dataDir(String name) {
        Path data = work.resolve(name);
        dataDirs.add(data);
        return data;
    }

    private static Optional<ProcessHandle> nodeProcess(Path data) {
        try {
            return Optional.of(pidOf(data)).flatMap(ProcessHandle::of).filter(ProcessHandle::isAlive);
        } catch (IOException | AssertionError e) {
            return Optional.empty();
        }
    }

    private static long pidOf(Path data) throws IOException {
        Path file = data.resolve("node.pid");
        assertThat(file).exists();
        Properties p = new Properties();
        p.load(new StringReader(Files.readString(file)));
        return Long.parseLong(p.getProperty("pid"));
    }

    /** A datagen job, rate-limited so it runs until the node stops it, checkpointing every 200 ms. */
    private Path writeJob() throws IOException {
        String job = """
                {"name": "service", "config": {"execution.checkpointing.interval": "200 ms",
                  "execution.checkpointing.dir": "%s"},
                 "operators": [
                  {"id": "source", "type": "datagen", "parallelism": 1, "config": {"rate": 200, "record-size": 10, "keys": 4}},
                  {"id": "count", "type": "keyed-aggregate", "parallelism": 1,
                   "inputs": [{"from": "source", "partitioning": "hash", "keys": ["key"]}],
                   "config": {"key": ["key"], "aggregates": [{"fn": "count", "as": "n"}]}},
                  {"id": "sink", "type": "discard", "parallelism": 1, "inputs": ["count"]}]}
                """.formatted(work.resolve("cp"));
        return Files.writeString(work.resolve("service.json"), job);
    }

    private void awaitCheckpoint(String url, String id) {
        await("a checkpoint of " + id).atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(100))
                .until(() -> get(url + "/jobs/" + id + "/checkpoints").getJsonObject("counts").getInt("completed") > 0);
    }

    private Run weir(String... args) throws IOException, InterruptedException {
        String name = "cli-" + (++runs);
        List<String> command = new ArrayList<>();
        command.add(WEIR.toString());
        command.addAll(List.of(args));
        Path stdout = work.resolve(name + "-stdout.txt");
        Path stderr = work.resolve(name + "-stderr.txt");
        Process p = new ProcessBuilder(command).directory(work.toFile()).redirectOutput(stdout.toFile())
                .redirectError(stderr.toFile()).redirectInput(ProcessBuilder.Redirect.PIPE).start();
        p.getOutputStream().close();
        if (!p.waitFor(150, TimeUnit.SECONDS)) {
            WeirProcesses.killWithDescendants(p);
            throw new AssertionError("bin/weir " + String.join(" ", args) + " did not end within 150 s: "
                    + WeirProcesses.describe(p, stdout, stderr));
        }
        return new Run(p.exitValue(), Files.readString(stdout, StandardCharsets.UTF_8), Files.readString(stderr, StandardCharsets.UTF_8));
    }

    private JsonObject get(String url) throws IOException, InterruptedException {
        HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(url)).GET().build(), HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).as("GET %s: %s", url, r.body()).isEqualTo(200);
        return json(r.body());
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
}
