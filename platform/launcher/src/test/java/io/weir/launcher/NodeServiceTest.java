package io.weir.launcher;

import com.sun.net.httpserver.HttpServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.BufferedReader;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@code weir node start|stop|status} against stand-in processes ({@code sleep}, {@code sh}) and a stub REST API:
 * the pid file and how a stale one is recognised, the refusal of a second node, the start that dies, SIGTERM and
 * {@code --force}.
 */
class NodeServiceTest {
    @TempDir
    Path dir;

    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();
    private final List<Process> processes = new CopyOnWriteArrayList<>();
    private final List<List<String>> spawned = new CopyOnWriteArrayList<>();
    private NodeSpawner spawner = (args, log) -> {
        throw new AssertionError("this test starts no node");
    };
    private HttpServer server;

    @AfterEach
    void cleanUp() throws InterruptedException {
        for (Process p : processes) {
            p.destroyForcibly();
            p.waitFor(10, TimeUnit.SECONDS);
        }
        if (server != null) {
            server.stop(0);
        }
    }

    private int weir(String... args) {
        NodeSpawner recording = (a, log) -> {
            spawned.add(a);
            return spawner.spawn(a, log);
        };
        return new Launcher((r, f, s) -> {
            throw new AssertionError("node start|stop|status must not boot Felix");
        }, new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8), dir, recording)
                .execute(args);
    }

    private String out() {
        return out.toString(StandardCharsets.UTF_8);
    }

    private String err() {
        return err.toString(StandardCharsets.UTF_8);
    }

    private Process process(String... command) throws IOException {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        processes.add(p);
        return p;
    }

    /** Writes the pid file of {@code process} as a node with data directory {@code data} would. */
    private static void writePidFile(Path data, ProcessHandle process, Instant started, String url) throws IOException {
        Files.createDirectories(data);
        Files.writeString(NodePidFile.path(data), new NodePidFile(process.pid(), started, URI.create(url)).text());
    }

    private static Instant startOf(ProcessHandle p) {
        return p.info().startInstant().orElseThrow(() -> new AssertionError("the OS does not report start times"));
    }

    /** A stub node answering {@code GET /overview}; returns its URL. */
    private String stubNode(String overview) throws IOException {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getByName("127.0.0.1"), 0), 0);
        server.createContext("/overview", x -> {
            byte[] bytes = overview.getBytes(StandardCharsets.UTF_8);
            x.getResponseHeaders().add("Content-Type", "application/json");
            x.sendResponseHeaders(200, bytes.length);
            x.getResponseBody().write(bytes);
            x.close();
        });
        server.start();
        return "http://127.0.0.1:" + server.getAddress().getPort();
    }

    @Test
    void statusWithoutAPidFileIsNotRunningExit3() {
        int rc = weir("node", "status", "--data-dir", dir.resolve("data").toString());

        assertThat(rc).isEqualTo(3);
        assertThat(out()).isEqualTo("Weir node is not running (data directory " + dir.resolve("data") + " has no pid file)\n");
    }

    @Test
    void statusRecognisesAPidFileOfAnEndedProcessAndOfARecycledPidAsStale() throws Exception {
        Process ended = process("true");
        ended.waitFor();
        Path data = dir.resolve("data");
        writePidFile(data, ended.toHandle(), Instant.now(), "http://127.0.0.1:1");

        assertThat(weir("node", "status", "--data-dir", data.toString())).isEqualTo(3);
        assertThat(out()).contains("is not running: its pid file " + NodePidFile.path(data) + " is stale (pid " + ended.pid());

        // a live pid, but the process started an hour after the recorded time: the pid was recycled
        ProcessHandle self = ProcessHandle.current();
        writePidFile(data, self, startOf(self).minus(Duration.ofHours(1)), "http://127.0.0.1:1");
        out.reset();
        assertThat(weir("node", "status", "--data-dir", data.toString())).isEqualTo(3);
        assertThat(out()).contains("is stale (pid " + self.pid());
    }

    @Test
    void statusOfARunningNodeShowsPidUrlUptimeAndJobCounts() throws Exception {
        String url = stubNode("{\"taskmanagers\":1,\"jobs-running\":2,\"jobs-finished\":1,\"jobs-cancelled\":0,\"jobs-failed\":3}");
        ProcessHandle self = ProcessHandle.current(); // this JVM stands in for the node
        Path data = dir.resolve("data");
        writePidFile(data, self, startOf(self), url);

        int rc = weir("node", "status", "--data-dir", data.toString());

        assertThat(rc).as(err()).isZero();
        assertThat(out()).startsWith("Weir node is running: pid " + self.pid() + ", " + url + ", up ")
                .contains("jobs: 2 running, 1 finished, 0 cancelled, 3 failed");
    }

    @Test
    void statusOfALiveProcessWhoseApiDoesNotAnswerIsExit4() throws Exception {
        ProcessHandle self = ProcessHandle.current();
        Path data = dir.resolve("data");
        int nobody;
        try (java.net.ServerSocket s = new java.net.ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
            nobody = s.getLocalPort();
        }
        writePidFile(data, self, startOf(self), "http://127.0.0.1:" + nobody);

        assertThat(weir("node", "status", "--data-dir", data.toString())).isEqualTo(4);
        assertThat(out()).contains("is running").contains("does not answer");
    }

    @Test
    void aSecondStartWhileANodeRunsIsOneLineAndExit1WithoutStartingAnything() throws Exception {
        ProcessHandle self = ProcessHandle.current();
        Path data = dir.resolve("data");
        writePidFile(data, self, startOf(self), "http://127.0.0.1:8081");

        int rc = weir("node", "start", "--data-dir", data.toString());

        assertThat(rc).isEqualTo(1);
        assertThat(err()).isEqualTo("error: a Weir node is already running with data directory " + data + " (pid " + self.pid()
                + ", http://127.0.0.1:8081); stop it with 'weir node stop --data-dir " + data + "'\n");
        assertThat(spawned).isEmpty();
    }

    @Test
    void startReturnsOnceThePidFileNamesTheProcessAndTheApiAnswers() throws Exception {
        String url = stubNode("{\"jobs-running\":0}");
        int port = URI.create(url).getPort();
        Path data = dir.resolve("data");
        Path savepoints = dir.resolve("sp");
        spawner = (args, log) -> {
            Process p = process("sleep", "60");
            writePidFile(data, p.toHandle(), startOf(p.toHandle()), url);
            Files.writeString(log, "Weir node listening on " + url + " (pid " + p.pid() + ")\n", java.nio.file.StandardOpenOption.APPEND);
            return p;
        };

        int rc = weir("node", "start", "--port", String.valueOf(port), "--data-dir", data.toString(), "--savepoint-dir", savepoints.toString());

        assertThat(rc).as(err()).isZero();
        assertThat(spawned).containsExactly(List.of("node", "--port", String.valueOf(port), "--data-dir", data.toString(),
                "--savepoint-dir", savepoints.toString()));
        assertThat(out()).startsWith("Weir node listening on " + url + " (pid " + processes.get(0).pid() + ", data directory " + data
                + ", log " + data.resolve("log/node.log"));
    }

    /** Another node answers on the port: the new one fails to bind and dies, which must not read as a start. */
    @Test
    void anAnswerFromAnotherNodeOnThePortIsNotTakenForTheNewNodesStart() throws Exception {
        String url = stubNode("{\"jobs-running\":0}");
        int port = URI.create(url).getPort();
        Path data = dir.resolve("data");
        spawner = (args, log) -> {
            Process p = process("sleep", "2");
            writePidFile(data, p.toHandle(), startOf(p.toHandle()), url);
            Files.writeString(log, "error: port " + port + " on 127.0.0.1 is in use\n", java.nio.file.StandardOpenOption.APPEND);
            return p;
        };

        int rc = weir("node", "start", "--port", String.valueOf(port), "--data-dir", data.toString());

        assertThat(rc).as(out()).isEqualTo(ExitCodes.FAILED);
        assertThat(out()).doesNotContain("Weir node listening on");
        assertThat(err()).contains("is in use");
    }

    @Test
    void aNodeThatDiesWhileStartingGetsItsOwnErrorLineAndTheEndOfItsLogPrinted() throws Exception {
        Path data = dir.resolve("data");
        Files.createDirectories(data.resolve("log"));
        Files.writeString(data.resolve("log/node.log"), "error: an older run's line, not this start's\n");
        spawner = (args, log) -> {
            Process p = new ProcessBuilder("sh", "-c", "echo '[main] INFO Booting'; echo 'error: port 18081 on 127.0.0.1 is in use "
                    + "(another weir node or program listens there); stop it or start with --port N'; exit 1")
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile())).redirectErrorStream(true).start();
            processes.add(p);
            return p;
        };

        int rc = weir("node", "start", "--data-dir", data.toString());

        assertThat(rc).isEqualTo(1);
        List<String> lines = err().lines().toList();
        assertThat(lines.get(0)).isEqualTo("error: port 18081 on 127.0.0.1 is in use (another weir node or program listens there); "
                + "stop it or start with --port N");
        assertThat(lines.get(1)).isEqualTo("The node (pid " + processes.get(0).pid() + ") exited during start with code 1; the end of its log "
                + data.resolve("log/node.log") + ":");
        assertThat(lines.subList(2, lines.size())).containsExactly("  [main] INFO Booting", "  error: port 18081 on 127.0.0.1 is in use "
                + "(another weir node or program listens there); stop it or start with --port N");
    }

    @Test
    void stopSendsSigtermWaitsAndRemovesThePidFile() throws Exception {
        Process node = process("sleep", "60");
        Path data = dir.resolve("data");
        writePidFile(data, node.toHandle(), startOf(node.toHandle()), "http://127.0.0.1:1");

        int rc = weir("node", "stop", "--data-dir", data.toString());

        assertThat(rc).as(err()).isZero();
        assertThat(node.isAlive()).isFalse();
        assertThat(node.exitValue()).as("ended by SIGTERM (128 + 15)").isEqualTo(143);
        assertThat(NodePidFile.path(data)).doesNotExist();
        assertThat(out()).contains("Stopping Weir node pid " + node.pid()).contains("Weir node pid " + node.pid() + " stopped");
    }

    @Test
    void aNodeIgnoringSigtermIsReportedAfterTheTimeoutAndKilledWithForce() throws Exception {
        Process node = process("sh", "-c", "trap '' TERM; echo ready; exec sleep 60"); // sleep inherits the ignored SIGTERM
        try (BufferedReader r = new BufferedReader(new InputStreamReader(node.getInputStream(), StandardCharsets.UTF_8))) {
            assertThat(r.readLine()).isEqualTo("ready");
            Path data = dir.resolve("data");
            writePidFile(data, node.toHandle(), startOf(node.toHandle()), "http://127.0.0.1:1");

            int rc = weir("node", "stop", "--data-dir", data.toString(), "--timeout", "1");

            assertThat(rc).isEqualTo(1);
            assertThat(err()).startsWith("error: Weir node pid " + node.pid() + " did not stop within 1 s of SIGTERM")
                    .contains("'weir node stop --force' kills it");
            assertThat(node.isAlive()).isTrue();
            assertThat(NodePidFile.path(data)).exists();

            rc = weir("node", "stop", "--data-dir", data.toString(), "--timeout", "1", "--force");

            assertThat(rc).isZero();
            assertThat(node.waitFor(10, TimeUnit.SECONDS)).isTrue();
            assertThat(node.exitValue()).as("SIGKILL (128 + 9)").isEqualTo(137);
            assertThat(NodePidFile.path(data)).doesNotExist();
            assertThat(out()).contains("killed it (SIGKILL)");
        }
    }

    @Test
    void stopWithoutANodeIsExit0AndRemovesAStalePidFile() throws Exception {
        Path data = dir.resolve("data");
        assertThat(weir("node", "stop", "--data-dir", data.toString())).isZero();
        assertThat(out()).contains("No Weir node is running with data directory " + data + " (no pid file");

        Process ended = process("true");
        ended.waitFor();
        writePidFile(data, ended.toHandle(), Instant.now(), "http://127.0.0.1:1");
        out.reset();
        assertThat(weir("node", "stop", "--data-dir", data.toString())).isZero();
        assertThat(out()).contains("removed the stale pid file of pid " + ended.pid());
        assertThat(NodePidFile.path(data)).doesNotExist();
    }

    @Test
    void claimReplacesAStalePidFileRefusesALiveOneAndReleaseRemovesOnlyItsOwn() throws Exception {
        Path data = dir.resolve("data");
        Process ended = process("true");
        ended.waitFor();
        writePidFile(data, ended.toHandle(), Instant.now(), "http://127.0.0.1:1");

        NodePidFile mine = NodePidFile.claim(data, URI.create("http://127.0.0.1:8082"));

        assertThat(mine.pid()).isEqualTo(ProcessHandle.current().pid());
        assertThat(NodePidFile.read(NodePidFile.path(data))).contains(mine);
        assertThat(mine.process()).isPresent();
        NodePidFile.release(data, ended.pid());
        assertThat(NodePidFile.path(data)).as("not released by another pid").exists();
        NodePidFile.release(data, mine.pid());
        assertThat(NodePidFile.path(data)).doesNotExist();

        Process live = process("sleep", "60");
        writePidFile(data, live.toHandle(), startOf(live.toHandle()), "http://127.0.0.1:1");
        assertThatThrownBy(() -> NodePidFile.claim(data, URI.create("http://127.0.0.1:8082")))
                .isInstanceOf(LauncherException.class).hasMessageContaining("already running").hasMessageContaining("pid " + live.pid());
        try (var files = Files.list(data)) {
            assertThat(files.map(p -> p.getFileName().toString())).as("no temporary file left").containsExactly("node.pid");
        }
    }

    @Test
    void aPidFileThatIsNotANodesIsOneLineNamingIt() throws Exception {
        Path data = Files.createDirectories(dir.resolve("data"));
        Files.writeString(NodePidFile.path(data), "12345\n");

        assertThat(weir("node", "status", "--data-dir", data.toString())).isEqualTo(1);
        assertThat(err()).startsWith("error: pid file " + NodePidFile.path(data) + " is not a Weir node's pid file")
                .contains("delete it if no node runs with this data directory").hasLineCount(1);
    }

    @Test
    void foregroundNodeTakesSavepointDirAbsoluteAndPassesItToTheFramework() {
        List<NodeSettings> nodes = new ArrayList<>();
        int rc = new Launcher(new CommandExecutor() {
            @Override
            public int execute(Map<String, Object> request, String feature, boolean interactiveShell) {
                throw new AssertionError();
            }

            @Override
            public int runNode(NodeSettings settings) {
                nodes.add(settings);
                return 0;
            }
        }, new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8), dir)
                .execute("node", "--savepoint-dir", "sp");

        assertThat(rc).isZero();
        Path expected = Path.of("sp").toAbsolutePath().normalize();
        assertThat(nodes).containsExactly(new NodeSettings("127.0.0.1", 8081, dir.resolve("data"), expected));
        assertThat(nodes.get(0).frameworkProperties()).containsEntry("weir.node.savepoint-dir", expected.toString());
    }
}
