package io.weir.launcher;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code weir info} against a stub node answering by path: what it requests (no token), what it prints (the job,
 * its operators, and the checkpoint table in {@code weir run}'s format, expected text written out by hand), and its
 * exit codes.
 */
class InfoCommandTest {
    private static final String ID = "0123456789abcdef0123456789abcdef";
    private static final String JOB = "200 {\"jid\":\"" + ID + "\",\"name\":\"demo\",\"state\":\"RUNNING\",\"start-time\":1000,"
            + "\"end-time\":-1,\"duration\":65000,\"now\":66000,\"restarts\":1,\"vertices\":["
            + "{\"id\":\"src\",\"name\":\"src\",\"type\":\"numbers\",\"kind\":\"source\",\"parallelism\":1,\"inputs\":[]},"
            + "{\"id\":\"sink\",\"name\":\"sink\",\"type\":\"discard\",\"kind\":\"sink\",\"parallelism\":1,\"inputs\":[\"src\"]}]}";

    @TempDir
    Path dir;

    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();
    private HttpServer server;
    /** Requests received: "METHOD path | Authorization". */
    private final List<String> received = new CopyOnWriteArrayList<>();

    @AfterEach
    void stopServer() {
        if (server != null) {
            server.stop(0);
        }
    }

    /** A stub node answering "STATUS body" by raw path; other paths get 404. */
    private String stub(Map<String, String> answers) throws IOException {
        Map<String, String> byPath = new ConcurrentHashMap<>(answers);
        server = HttpServer.create(new InetSocketAddress(InetAddress.getByName("127.0.0.1"), 0), 0);
        server.createContext("/", (HttpExchange x) -> {
            String path = x.getRequestURI().getRawPath();
            received.add(x.getRequestMethod() + " " + path + " | " + x.getRequestHeaders().getFirst("Authorization"));
            String answer = byPath.getOrDefault(path, "404 {\"errors\":[\"no such path " + path + "\"]}");
            int space = answer.indexOf(' ');
            byte[] bytes = answer.substring(space + 1).getBytes(StandardCharsets.UTF_8);
            x.getResponseHeaders().add("Content-Type", "application/json");
            x.sendResponseHeaders(Integer.parseInt(answer.substring(0, space)), bytes.length);
            x.getResponseBody().write(bytes);
            x.close();
        });
        server.start();
        return "http://127.0.0.1:" + server.getAddress().getPort();
    }

    private int run(String... args) {
        CommandExecutor executor = new CommandExecutor() {
            @Override
            public int execute(Map<String, Object> request, String feature, boolean interactiveShell) {
                throw new AssertionError("client commands must not boot Felix");
            }

            @Override
            public int runNode(NodeSettings settings) {
                throw new AssertionError("not a node command");
            }
        };
        return new Launcher(executor, new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8), dir).execute(args);
    }

    private String out() {
        return out.toString(StandardCharsets.UTF_8);
    }

    private String err() {
        return err.toString(StandardCharsets.UTF_8);
    }

    @Test
    void infoPrintsTheJobItsOperatorsAndTheLatestCheckpointTableAsWeirRunDoes() throws IOException {
        String cp = "/jobs/" + ID + "/checkpoints/details/7";
        String url = stub(Map.of(
                "/jobs/demo", JOB,
                "/jobs/" + ID + "/checkpoints", "200 {\"latest\":{\"completed\":{\"id\":7}}}",
                cp, "200 {\"id\":7,\"status\":\"COMPLETED\",\"is_savepoint\":false,\"is_final\":false,\"trigger_timestamp\":1000,"
                        + "\"end_to_end_duration\":120,\"checkpointed_size\":40,\"persisted_data\":512,"
                        + "\"tasks\":{\"src\":{},\"sink\":{}}}",
                cp + "/subtasks/src", "200 {\"subtasks\":[{\"index\":0,\"ack_timestamp\":1020,\"checkpointed_size\":10,"
                        + "\"checkpoint\":{\"sync\":2,\"async\":5},\"alignment\":{\"processed\":0,\"persisted\":0,\"duration\":0},"
                        + "\"start_delay\":1,\"unaligned_checkpoint\":false}]}",
                cp + "/subtasks/sink", "200 {\"subtasks\":[{\"index\":0,\"ack_timestamp\":1110,\"checkpointed_size\":30,"
                        + "\"checkpoint\":{\"sync\":3,\"async\":40},\"alignment\":{\"processed\":1024,\"persisted\":512,\"duration\":9},"
                        + "\"start_delay\":16,\"unaligned_checkpoint\":true}]}"));

        int rc = run("info", "demo", "--node", url);

        assertThat(rc).as(err()).isZero();
        assertThat(out()).isEqualTo(String.join("\n",
                "Job demo (" + ID + ")",
                "Status: RUNNING, up 1m5s",
                "Operators:",
                "  OPERATOR  TYPE     KIND    PARALLELISM  INPUTS",
                "  src       numbers  source            1  -",
                "  sink      discard  sink              1  src",
                "Checkpoint 7: 40 bytes, 120 ms end to end; per subtask (times in ms, size in bytes):",
                "vertex  subtask  start_delay  alignment  sync  async  end_to_end  size  persisted  aligned_bytes  unaligned",
                "src           0            1          0     2      5          20    10          0              0         no",
                "sink          0           16          9     3     40         110    30        512           1024        yes",
                "").replace("\n", System.lineSeparator()));
        assertThat(received).allMatch(r -> r.startsWith("GET ") && r.endsWith("| null"), "only GETs, without a token");
    }

    @Test
    void infoShowsThePluginVersionEachOperatorRunsAndThePluginUpgrades() throws IOException {
        String upgraded = JOB.replace("]}]}", "]}],\"plugin-versions\":["
                + "{\"operator\":\"src\",\"type\":\"numbers\",\"bundle\":\"io.weir.plugins.basic\",\"version\":\"1.1.0\",\"range\":\"any\"},"
                + "{\"operator\":\"sink\",\"type\":\"discard\",\"bundle\":\"io.weir.plugins.basic\",\"version\":\"1.1.0\",\"range\":\"[1.0.0,2.0.0)\"}],"
                + "\"upgrades\":[{\"time\":5000,\"from\":[\"sink: discard io.weir.plugins.basic 1.0.0\"],"
                + "\"to\":[\"sink: discard io.weir.plugins.basic 1.1.0\"],\"savepoint\":\"/sp/savepoint-1\",\"downtime-ms\":87,"
                + "\"outcome\":\"UPGRADED\",\"message\":\"runs on 1.1.0\"}]}");
        String url = stub(Map.of("/jobs/demo", upgraded, "/jobs/" + ID + "/checkpoints", "200 {\"latest\":{}}"));

        int rc = run("info", "demo", "--node", url);

        assertThat(rc).as(err()).isZero();
        assertThat(out()).contains(String.join("\n",
                "  OPERATOR  TYPE     KIND    PARALLELISM  INPUTS  PLUGIN",
                "  src       numbers  source            1  -       io.weir.plugins.basic 1.1.0",
                "  sink      discard  sink              1  src     io.weir.plugins.basic 1.1.0 (range [1.0.0,2.0.0))",
                "Plugin upgrades:",
                "  UPGRADED: sink: discard io.weir.plugins.basic 1.0.0 -> sink: discard io.weir.plugins.basic 1.1.0, downtime 87 ms,"
                        + " savepoint /sp/savepoint-1",
                "    runs on 1.1.0",
                "").replace("\n", System.lineSeparator()));
    }

    @Test
    void anEndedJobShowsHowLongItRanItsRestartsAndItsFailure() throws IOException {
        String failed = JOB.replace("\"state\":\"RUNNING\"", "\"state\":\"FAILED\"").replace("\"end-time\":-1", "\"end-time\":66000")
                .replace("\"restarts\":1", "\"restarts\":3,\"failure-cause\":\"java.lang.Exception: Job demo failed after 3 restart(s)\"");
        String url = stub(Map.of("/jobs/demo", failed, "/jobs/" + ID + "/checkpoints", "200 {\"latest\":{}}"));

        int rc = run("info", "demo", "--node", url);

        assertThat(rc).as(err()).isZero();
        assertThat(out()).contains("Status: FAILED, ran 1m5s, restarts: 3" + System.lineSeparator()
                + "Failure: java.lang.Exception: Job demo failed after 3 restart(s)" + System.lineSeparator());
    }

    @Test
    void aJobWithoutACompletedCheckpointSaysSo() throws IOException {
        String url = stub(Map.of("/jobs/demo", JOB, "/jobs/" + ID + "/checkpoints", "200 {\"latest\":{}}"));

        int rc = run("info", "demo", "--node", url);

        assertThat(rc).as(err()).isZero();
        assertThat(out()).contains("  sink      discard  sink              1  src").endsWith("No completed checkpoint yet."
                + System.lineSeparator());
    }

    @Test
    void anUnknownJobIsExit1WithTheNodesMessage() throws IOException {
        String url = stub(Map.of("/jobs/nope", "404 {\"errors\":[\"no job with id or name 'nope' on this node; GET /jobs lists them\"]}"));

        int rc = run("info", "nope", "--node", url);

        assertThat(rc).isEqualTo(ExitCodes.FAILED);
        assertThat(err()).contains("no job with id or name 'nope'");
        assertThat(out()).isEmpty();
    }

    @Test
    void aNodeThatIsNotRunningIsOneLineAndExit1() throws IOException {
        int port;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
            port = s.getLocalPort();
        }

        int rc = run("info", "demo", "--node", "http://127.0.0.1:" + port);

        assertThat(rc).isEqualTo(ExitCodes.FAILED);
        assertThat(err()).contains("no Weir node is running at http://127.0.0.1:" + port).doesNotContain("Exception");
    }
}
