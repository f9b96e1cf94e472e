package io.weir.distribution;

import jakarta.json.JsonObject;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Drives {@code bin/weir node} processes of the built distribution and its CLI from a test: every process it starts runs
 * in {@code work} with stdout/stderr in {@code work/<name>-stdout.txt} / {@code -stderr.txt}, and {@link #stopAll()}
 * (call it from {@code @AfterEach}) stops them all, also when an assertion failed. Reads go through plain HTTP GETs.
 * Not thread-safe: one test thread.
 */
final class NodeSession {
    private static final Path HOME = Path.of(System.getProperty("weir.home", "target/weir")).toAbsolutePath();
    /** The distribution's launcher script. */
    static final Path WEIR = HOME.resolve("bin/weir");

    private final Path work;
    /** The launcher script this session runs. */
    private final Path weir;
    /** Variables added to the environment of every process started. */
    private final Map<String, String> environment;
    private final List<Process> started = new ArrayList<>();
    private final HttpClient http = HttpClient.newHttpClient();
    private int runs;

    /** @param work the directory processes run in and write their output files to */
    NodeSession(Path work) {
        this(work, WEIR);
    }

    /**
     * @param work the directory processes run in and write their output files to
     * @param weir the {@code bin/weir} of another copy of the distribution (a test that changes its {@code plugins/})
     */
    NodeSession(Path work, Path weir) {
        this(work, weir, Map.of());
    }

    /**
     * @param work the directory processes run in and write their output files to
     * @param weir the {@code bin/weir} of another copy of the distribution (a test that changes its {@code plugins/})
     * @param environment variables added to every process this session starts (e.g. {@code JAVA_OPTS})
     */
    NodeSession(Path work, Path weir, Map<String, String> environment) {
        this.work = work;
        this.weir = weir;
        this.environment = Map.copyOf(environment);
    }

    /** The HTTP client requests of a test may share. */
    HttpClient http() {
        return http;
    }

    /** Starts {@code weir node --port port --data-dir data} with its output in {@code work/<name>-std*.txt}; does not wait. */
    Process startNode(int port, Path data, String name) throws IOException {
        return weirAsync(name, "node", "--port", String.valueOf(port), "--data-dir", data.toString());
    }

    /** Waits up to 90 s until the node printed that it listens on {@code port}; fails with its output if it died. */
    void awaitListening(Process node, int port, String name) throws IOException {
        Path stdout = work.resolve(name + "-stdout.txt");
        await("node listening on " + port).atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(100))
                .until(() -> !node.isAlive() || Files.readString(stdout).contains("Weir node listening on http://127.0.0.1:" + port));
        assertThat(node.isAlive()).as("node died: %s %s", Files.readString(stdout),
                Files.readString(work.resolve(name + "-stderr.txt"))).isTrue();
    }

    /** Starts {@code bin/weir args...} with its output in {@code work/<name>-std*.txt} and stdin closed; does not wait. */
    Process weirAsync(String name, String... args) throws IOException {
        List<String> command = new ArrayList<>();
        command.add(weir.toString());
        command.addAll(List.of(args));
        ProcessBuilder builder = new ProcessBuilder(command).directory(work.toFile())
                .redirectOutput(work.resolve(name + "-stdout.txt").toFile())
                .redirectError(work.resolve(name + "-stderr.txt").toFile()).redirectInput(ProcessBuilder.Redirect.PIPE);
        builder.environment().putAll(environment);
        Process p = builder.start();
        p.getOutputStream().close();
        started.add(p);
        return p;
    }

    /** Waits up to 60 s for a process {@link #weirAsync} started; fails if it runs longer. */
    WeirProcesses.Run finish(Process p, String name) throws IOException, InterruptedException {
        if (!p.waitFor(60, TimeUnit.SECONDS)) {
            throw new AssertionError("bin/weir " + name + " did not end within 60 s");
        }
        return new WeirProcesses.Run(p.exitValue(), Files.readString(work.resolve(name + "-stdout.txt")),
                Files.readString(work.resolve(name + "-stderr.txt")));
    }

    /** Runs {@code bin/weir args...} to its end (at most 60 s). */
    WeirProcesses.Run weir(String... args) throws IOException, InterruptedException {
        String name = "cli-" + (++runs);
        return finish(weirAsync(name, args), name);
    }

    /** GET {@code url}; asserts 200 and returns the body as JSON. */
    JsonObject get(String url) throws IOException, InterruptedException {
        HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(url)).GET().build(), HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).as("GET %s: %s", url, r.body()).isEqualTo(200);
        return WeirProcesses.json(r.body());
    }

    /** The {@code state} of job {@code job} (id or unique name) on the node at {@code url}. */
    String state(String url, String job) throws IOException, InterruptedException {
        return get(url + "/jobs/" + job).getString("state");
    }

    /** Waits up to 60 s until job {@code id} on the node at {@code url} has more than {@code completed} completed checkpoints. */
    void awaitCheckpoints(String url, String id, int completed) {
        await("checkpoint " + (completed + 1) + " of " + id).atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(100))
                .until(() -> get(url + "/jobs/" + id + "/checkpoints").getJsonObject("counts").getInt("completed") > completed);
    }

    /** Stops (SIGTERM, then SIGKILL) every process this session started, in start order. */
    void stopAll() throws InterruptedException {
        for (Process p : started) {
            WeirProcesses.stop(p);
        }
    }
}
