package io.weir.distribution;

import jakarta.json.JsonArray;
import jakarta.json.JsonObject;
import jakarta.json.JsonValue;

import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
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
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Three {@code bin/weir node --cluster} processes on 127.0.0.1 for the HA ITs: starts, kills ({@code kill -9}),
 * pauses ({@code kill -STOP}/{@code -CONT}) and restarts them; each start writes {@code <name>-<n>-std*.txt} in the work
 * directory. The ha bundle logs at info, so each completed checkpoint is logged with its epoch.
 */
final class HaCluster implements AutoCloseable {
    private static final Path HOME = Path.of(System.getProperty("weir.home", "target/weir")).toAbsolutePath();
    private static final Pattern COMPLETED = Pattern.compile(
            "Job (\\S+) completed checkpoint (\\d+) under epoch (\\d+) at (\\d+)");

    /** One checkpoint completion logged by a node. */
    record Completion(String job, long checkpointId, long epoch, long atMillis, String node) {
    }

    private final Path work;
    private final List<Path> homes;
    private final int[] restPorts;
    private final int[] memberPorts;
    private final Process[] nodes;
    private final int[] starts;
    private final List<Process> all = new ArrayList<>();
    private final HttpClient http = HttpClient.newHttpClient();

    HaCluster(Path work, int size) throws IOException {
        this(work, java.util.Collections.nCopies(size, HOME));
    }

    /**
     * @param homes per node, the distribution home whose {@code bin/weir} (and so {@code plugins/}) it runs: a test
     *        that changes one member's plugins gives each member its own ({@link PluginUpgradeIT#privateDistribution})
     */
    HaCluster(Path work, List<Path> homes) throws IOException {
        int size = homes.size();
        this.homes = List.copyOf(homes);
        this.work = work;
        this.restPorts = new int[size];
        this.memberPorts = new int[size];
        // distinct: a port is probed free and released, so the same free port can be drawn twice (seen 2026-12-02: two
        // nodes on one REST port, the second's readiness probe answered by the first)
        java.util.Set<Integer> taken = new java.util.HashSet<>();
        for (int i = 0; i < size; i++) {
            restPorts[i] = portBelowEphemeralRange(taken);
            memberPorts[i] = portBelowEphemeralRange(taken);
        }
        this.nodes = new Process[size];
        this.starts = new int[size];
    }

    /**
     * A free port below Linux's ephemeral range (32768-60999): a killed node is restarted on the same ports, and a port
     * from the ephemeral range can meanwhile be taken as the local end of an outgoing connection (seen: "Port [34745]
     * is already in use" at a restart, the member never joined).
     *
     * @param taken ports already drawn for this cluster; the drawn port is added
     */
    private static int portBelowEphemeralRange(java.util.Set<Integer> taken) throws IOException {
        java.util.Random random = new java.util.Random();
        for (int attempt = 0; attempt < 200; attempt++) {
            int port = 20_000 + random.nextInt(12_000);
            if (!taken.add(port)) {
                continue;
            }
            try (java.net.ServerSocket s = new java.net.ServerSocket(port, 1, java.net.InetAddress.getLoopbackAddress())) {
                return port;
            } catch (IOException inUse) {
                // try another
            }
        }
        throw new IOException("no free port found in 20000-31999 after 200 tries");
    }

    int size() {
        return nodes.length;
    }

    String url(int i) {
        return "http://127.0.0.1:" + restPorts[i];
    }

    /** Starts node {@code i} (does not wait). */
    void start(int i) throws IOException {
        String members = IntStream.of(memberPorts).mapToObj(p -> "127.0.0.1:" + p).collect(Collectors.joining(","));
        String name = "n" + i + "-" + (++starts[i]);
        ProcessBuilder pb = new ProcessBuilder(homes.get(i).resolve("bin/weir").toString(), "node", "--port", String.valueOf(restPorts[i]),
                "--data-dir", work.resolve("n" + i).toString(), "--cluster", members, "--cluster-port", String.valueOf(memberPorts[i]))
                .directory(work.toFile()).redirectOutput(work.resolve(name + "-stdout.txt").toFile())
                .redirectError(work.resolve(name + "-stderr.txt").toFile());
        // Hazelcast's membership changes (mastership claims, member lists, merges) at INFO, its heartbeats at DEBUG and
        // a GC log: a failover that stalls is read from them (kept only when a test fails); ha.it.node-opts adds flags
        pb.environment().put("JAVA_OPTS", "-Dorg.slf4j.simpleLogger.log.io.weir.ha=info"
                + " -Dorg.slf4j.simpleLogger.log.com.hazelcast.internal.cluster=info"
                + " -Dorg.slf4j.simpleLogger.log.com.hazelcast.internal.cluster.impl.ClusterHeartbeatManager=debug"
                + " -Xlog:gc:file=" + work.resolve(name + "-gc.txt") + " " + System.getProperty("ha.it.node-opts", ""));
        Process p = pb.start();
        p.getOutputStream().close();
        nodes[i] = p;
        all.add(p);
    }

    /** Starts every node and waits until each sees all. */
    void startAll() throws IOException {
        for (int i = 0; i < nodes.length; i++) {
            start(i);
        }
        for (int i = 0; i < nodes.length; i++) {
            awaitMembers(i, nodes.length);
        }
    }

    /**
     * Waits until node {@code i} answers, sees {@code members} members and reports the cluster safe (every backup in
     * sync): killing a node before that can lose map entries that exist only on it (docs/rest-api.md "Cluster").
     */
    void awaitMembers(int i, int members) {
        await("node " + i + " sees " + members + " members and a safe cluster").atMost(Duration.ofSeconds(240))
                .pollInterval(Duration.ofMillis(250)).ignoreExceptions().until(() -> {
                    assertThat(nodes[i].isAlive()).as("node %d died: %s", i, log(i)).isTrue();
                    JsonObject cluster = get(url(i) + "/cluster");
                    return cluster.getJsonArray("members").size() == members && cluster.getBoolean("safe");
                });
    }

    /** @return how many members node {@code i} sees ({@code GET /cluster}) */
    int members(int i) throws IOException, InterruptedException {
        return get(url(i) + "/cluster").getJsonArray("members").size();
    }

    /** @return the REST URL of the leader (Hazelcast's master) as node {@code i} sees it ({@code GET /cluster}) */
    String leader(int i) throws IOException, InterruptedException {
        return get(url(i) + "/cluster").getString("leader");
    }

    /** SIGKILL to node {@code i} (and the JVM under bin/weir). */
    void kill(int i) throws InterruptedException {
        WeirProcesses.killWithDescendants(nodes[i]);
    }

    /** SIGSTOP or SIGCONT to node {@code i}'s processes. */
    void signal(int i, String signal) throws IOException, InterruptedException {
        List<ProcessHandle> handles = new ArrayList<>(nodes[i].descendants().toList());
        handles.add(nodes[i].toHandle());
        for (ProcessHandle h : handles) {
            Process k = new ProcessBuilder("kill", "-" + signal, String.valueOf(h.pid())).inheritIO().start();
            assertThat(k.waitFor()).isZero();
        }
    }

    boolean alive(int i) {
        return nodes[i] != null && nodes[i].isAlive();
    }

    /** Submits {@code jobFile} through node {@code i}'s {@code POST /cluster/jobs}. */
    void submit(int i, Path jobFile) throws IOException, InterruptedException {
        String token = Files.readString(work.resolve("n" + i).resolve("security/admin.token")).strip();
        HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(url(i) + "/cluster/jobs?base-dir="
                        + URLEncoder.encode(jobFile.getParent().toString(), StandardCharsets.UTF_8)))
                .header("Authorization", "Bearer " + token).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofFile(jobFile)).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).as(r.body()).isEqualTo(202);
    }

    /** @return the cluster's jobs as node {@code i} sees them, by name */
    Map<String, JsonObject> jobs(int i) throws IOException, InterruptedException {
        HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(url(i) + "/cluster/jobs")).timeout(Duration.ofSeconds(5))
                        .GET().build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        JsonArray a = jakarta.json.Json.createReader(new java.io.StringReader(r.body())).readArray();
        return a.stream().map(JsonValue::asJsonObject).collect(Collectors.toMap(o -> o.getString("name"), o -> o));
    }

    /** @return the index of the node whose REST URL is {@code owner}, empty if none */
    Optional<Integer> indexOf(String owner) {
        return IntStream.range(0, nodes.length).filter(i -> url(i).equals(owner)).boxed().findFirst();
    }

    JsonObject get(String url) throws IOException, InterruptedException {
        HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(10)).GET().build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).as("GET %s: %s", url, r.body()).isEqualTo(200);
        return WeirProcesses.json(r.body());
    }

    /** @return every checkpoint completion logged by any start of any node, in completion-time order */
    List<Completion> completions() throws IOException {
        List<Completion> all = new ArrayList<>();
        for (Path f : stderrFiles()) {
            Matcher m = COMPLETED.matcher(Files.readString(f));
            while (m.find()) {
                all.add(new Completion(m.group(1), Long.parseLong(m.group(2)), Long.parseLong(m.group(3)),
                        Long.parseLong(m.group(4)), f.getFileName().toString()));
            }
        }
        all.sort(java.util.Comparator.comparingLong(Completion::atMillis).thenComparingLong(Completion::checkpointId));
        return all;
    }

    /**
     * @param regex what a line must contain (a {@link Pattern} found anywhere in it)
     * @return the matching log lines of every start's stderr, each prefixed with its file and followed by its exception
     *         and causes (without stack frames), ordered by their time of day (the lines' {@code HH:mm:ss.SSS} prefix; a
     *         run does not cross midnight)
     */
    List<String> timeline(String regex) throws IOException {
        Pattern p = Pattern.compile(regex);
        List<String> lines = new ArrayList<>();
        for (Path f : stderrFiles()) {
            String node = f.getFileName().toString().replace("-stderr.txt", "");
            StringBuilder entry = null;
            for (String line : Files.readAllLines(f)) {
                if (line.matches("\\d\\d:\\d\\d:\\d\\d\\.\\d{3} .*")) {
                    if (entry != null) {
                        lines.add(entry.toString());
                    }
                    entry = p.matcher(line).find()
                            ? new StringBuilder(line.substring(0, 12) + " " + node + " " + line.substring(13, Math.min(line.length(), 300)))
                            : null;
                } else if (entry != null && !line.isBlank() && !line.stripLeading().startsWith("at ")
                        && !line.stripLeading().startsWith("...")) {
                    entry.append(" | ").append(line.strip(), 0, Math.min(line.strip().length(), 300)); // exception and causes
                }
            }
            if (entry != null) {
                lines.add(entry.toString());
            }
        }
        lines.sort(null);
        return lines;
    }

    /** @return the stderr file of every start of every node */
    private List<Path> stderrFiles() throws IOException {
        try (var files = Files.list(work)) {
            return files.filter(p -> p.getFileName().toString().matches("n\\d+-\\d+-stderr\\.txt")).toList();
        }
    }

    /** @return the stderr of node {@code i}'s latest start */
    String log(int i) throws IOException {
        return Files.readString(work.resolve("n" + i + "-" + starts[i] + "-stderr.txt"));
    }

    /** @return every start's stderr of node {@code i}, concatenated */
    String allLogs(int i) throws IOException {
        StringBuilder b = new StringBuilder();
        for (int s = 1; s <= starts[i]; s++) {
            b.append(Files.readString(work.resolve("n" + i + "-" + s + "-stderr.txt")));
        }
        return b.toString();
    }

    /** SIGCONT then SIGKILL to every process ever started (a paused one must not survive the test). */
    @Override
    public void close() throws InterruptedException {
        for (Process p : all) {
            if (p.isAlive()) {
                for (ProcessHandle h : p.descendants().toList()) {
                    try {
                        new ProcessBuilder("kill", "-CONT", String.valueOf(h.pid())).start().waitFor();
                    } catch (IOException e) {
                        // best effort: SIGKILL below ends a stopped process too
                    }
                }
                WeirProcesses.killWithDescendants(p);
            }
        }
    }
}
