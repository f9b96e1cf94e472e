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
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code weir node} argument handling and the client commands against a stub node (the JDK's HTTP
 * server answering what the real node answers): what they send, how they print, their exit codes.
 */
class NodeCommandsTest {
    @TempDir
    Path dir;

    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();
    private final List<NodeSettings> nodes = new CopyOnWriteArrayList<>();
    private final CommandExecutor executor = new CommandExecutor() {
        @Override
        public int execute(Map<String, Object> request, String feature, boolean interactiveShell) {
            throw new AssertionError("client commands must not boot Felix");
        }

        @Override
        public int runNode(NodeSettings settings) {
            nodes.add(settings);
            return 0;
        }
    };
    private Launcher launcher;
    private HttpServer server;
    /** Requests the stub received: "METHOD path?query | Authorization | body". */
    private final List<String> received = new CopyOnWriteArrayList<>();

    private Launcher launcher() {
        if (launcher == null) {
            launcher = new Launcher(executor, new PrintStream(out, true, StandardCharsets.UTF_8),
                    new PrintStream(err, true, StandardCharsets.UTF_8), dir);
        }
        return launcher;
    }

    @AfterEach
    void stopServer() {
        if (server != null) {
            server.stop(0);
        }
    }

    /** A stub node that answers every request with {@code status} and {@code body}. */
    private String stub(int status, String body) throws IOException {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getByName("127.0.0.1"), 0), 0);
        server.createContext("/", (HttpExchange x) -> {
            String requestBody = new String(x.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
            received.add(x.getRequestMethod() + " " + x.getRequestURI().getRawPath()
                    + (x.getRequestURI().getRawQuery() == null ? "" : "?" + URLDecoder.decode(x.getRequestURI().getRawQuery(), StandardCharsets.UTF_8))
                    + " | " + x.getRequestHeaders().getFirst("Authorization") + " | " + requestBody);
            byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
            x.getResponseHeaders().add("Content-Type", "application/json");
            x.sendResponseHeaders(status, bytes.length == 0 ? -1 : bytes.length);
            if (bytes.length > 0) {
                x.getResponseBody().write(bytes);
            }
            x.close();
        });
        server.start();
        return "http://127.0.0.1:" + server.getAddress().getPort();
    }

    private Path token() throws IOException {
        return Files.writeString(dir.resolve("token"), "the-token\n");
    }

    private String err() {
        return err.toString(StandardCharsets.UTF_8);
    }

    private String out() {
        return out.toString(StandardCharsets.UTF_8);
    }

    @Test
    void nodeDefaultsToPort8081AndTheDistributionsDataDirectory() {
        int rc = launcher().execute("node");

        assertThat(rc).isZero();
        assertThat(nodes).containsExactly(new NodeSettings("127.0.0.1", 8081, dir.resolve("data")));
        assertThat(nodes.get(0).url().toString()).isEqualTo("http://127.0.0.1:8081");
        assertThat(nodes.get(0).tokenFile()).isEqualTo(dir.resolve("data/security/admin.token"));
    }

    @Test
    void nodeTakesPortAndDataDirectory() {
        launcher().execute("node", "--port", "18099", "--data-dir", dir.resolve("d").toString());

        assertThat(nodes).containsExactly(new NodeSettings("127.0.0.1", 18099, dir.resolve("d")));
    }

    @Test
    void aPortOutOfRangeIsAUsageError() {
        int rc = launcher().execute("node", "--port", "0");

        assertThat(rc).isEqualTo(ExitCodes.USAGE);
        assertThat(err()).contains("--port must be 1..65535, got 0");
        assertThat(nodes).isEmpty();
    }

    @Test
    void aPortInUseIsRefusedInOneLine() throws IOException {
        try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
            NodeSettings settings = new NodeSettings("127.0.0.1", taken.getLocalPort(), dir);
            LauncherException e = org.junit.jupiter.api.Assertions.assertThrows(LauncherException.class,
                    () -> NodeReadiness.requirePortFree(settings));
            assertThat(e.exitCode()).isEqualTo(ExitCodes.FAILED);
            assertThat(e.getMessage()).isEqualTo("port " + taken.getLocalPort()
                    + " on 127.0.0.1 is in use (another weir node or program listens there); stop it or start with --port N");
        }
    }

    @Test
    void submitPostsTheFileWithItsDirectoryOverridesAndToken() throws IOException {
        String url = stub(202, "{\"jobid\":\"0123456789abcdef0123456789abcdef\",\"name\":\"demo\"}");
        Path job = Files.writeString(dir.resolve("job.json"), "{\"name\":\"demo\"}");

        int rc = launcher().execute("submit", job.toString(), "--node", url, "--token-file", token().toString(),
                "--set", "execution.checkpointing.interval=2 s");

        assertThat(rc).as(err()).isZero();
        assertThat(out()).contains("Submitted job demo as 0123456789abcdef0123456789abcdef to " + url);
        assertThat(received).containsExactly("POST /jobs?base-dir=" + dir + "&set=execution.checkpointing.interval=2 s"
                + " | Bearer the-token | {\"name\":\"demo\"}");
    }

    @Test
    void pluginsInstallPostsTheJarUnderItsNameWithTheTokenAndPrintsStateAndTypes() throws IOException {
        String url = stub(201, "{\"bundle\":\"acme.ops\",\"version\":\"1.2.0\",\"state\":\"ACTIVE\",\"file\":\"acme.jar\","
                + "\"types\":[{\"name\":\"acme-op\",\"kind\":\"operator\",\"settings\":[]}],\"error\":null,\"jobs\":[]}");
        Path jar = Files.writeString(dir.resolve("acme.jar"), "jar bytes");

        int rc = launcher().execute("plugins", "install", jar.toString(), "--node", url, "--token-file", token().toString());

        assertThat(rc).as(err()).isZero();
        assertThat(received).containsExactly("POST /plugins?file=acme.jar | Bearer the-token | jar bytes");
        assertThat(out()).contains("Installed plugin acme.ops 1.2.0 (acme.jar) on " + url + ": ACTIVE, types acme-op (operator)");
    }

    @Test
    void pluginsInstallOfAPluginThatFailedIsExit1WithItsError() throws IOException {
        String url = stub(201, "{\"bundle\":\"boom\",\"version\":\"1.0.0\",\"state\":\"ACTIVE\",\"file\":\"boom.jar\","
                + "\"types\":[],\"error\":\"component boom.Boom failed to activate: java.lang.IllegalStateException: no licence\"}");
        Path jar = Files.writeString(dir.resolve("boom.jar"), "jar bytes");

        int rc = launcher().execute("plugins", "install", jar.toString(), "--node", url, "--token-file", token().toString());

        assertThat(rc).isEqualTo(1);
        assertThat(err()).contains("error: plugin boom 1.0.0 (boom.jar) was placed but is not usable: component boom.Boom failed "
                + "to activate: java.lang.IllegalStateException: no licence; 'weir plugins remove boom' removes it");
    }

    @Test
    void pluginsInstallRefusedIsExit1WithTheNodesReason() throws IOException {
        String url = stub(413, "{\"errors\":[\"the plugin (99 bytes) is larger than the upload limit of 10 bytes\"]}");
        Path jar = Files.writeString(dir.resolve("big.jar"), "jar bytes");

        int rc = launcher().execute("plugins", "install", jar.toString(), "--node", url, "--token-file", token().toString());

        assertThat(rc).isEqualTo(1);
        assertThat(err()).contains("error: the plugin (99 bytes) is larger than the upload limit of 10 bytes");
    }

    @Test
    void pluginsInstallOfAMissingFileIsAUsageError() throws IOException {
        int rc = launcher().execute("plugins", "install", dir.resolve("nope.jar").toString(), "--token-file", token().toString());

        assertThat(rc).isEqualTo(2);
        assertThat(err()).contains("plugin file " + dir.resolve("nope.jar") + " does not exist or is not readable");
    }

    @Test
    void pluginsRemoveDeletesByBundleWithTheToken() throws IOException {
        String url = stub(200, "{\"bundle\":\"acme.ops\",\"version\":\"1.2.0\",\"file\":\"acme.jar\"}");

        int rc = launcher().execute("plugins", "remove", "acme.ops", "--node", url, "--token-file", token().toString());

        assertThat(rc).as(err()).isZero();
        assertThat(received).containsExactly("DELETE /plugins/acme.ops | Bearer the-token | ");
        assertThat(out()).contains("Removed plugin acme.ops 1.2.0 (acme.jar) from " + url);
    }

    @Test
    void submitFromASavepointSendsFlinksRestoreParameters() throws IOException {
        String url = stub(202, "{\"jobid\":\"0123456789abcdef0123456789abcdef\",\"name\":\"demo\"}");
        Path job = Files.writeString(dir.resolve("job.json"), "{\"name\":\"demo\"}");

        int rc = launcher().execute("submit", job.toString(), "--node", url, "--token-file", token().toString(),
                "--from-savepoint", "/sp/savepoint-demo-0a0b0c", "--allow-non-restored-state");

        assertThat(rc).as(err()).isZero();
        assertThat(received).containsExactly("POST /jobs?base-dir=" + dir + "&savepointPath=/sp/savepoint-demo-0a0b0c"
                + "&allowNonRestoredState=true | Bearer the-token | {\"name\":\"demo\"}");
    }

    @Test
    void anInvalidJobIsExit2WithTheNodesMessageAndTheFile() throws IOException {
        String url = stub(400, "{\"errors\":[\"operators[0].parallelism must be between 1 and 128\"]}");
        Path job = Files.writeString(dir.resolve("job.json"), "{}");

        int rc = launcher().execute("submit", job.toString(), "--node", url, "--token-file", token().toString());

        assertThat(rc).isEqualTo(ExitCodes.USAGE);
        assertThat(err().strip()).isEqualTo("error: operators[0].parallelism must be between 1 and 128 (in " + job + ")");
    }

    @Test
    void aBadSetIsNotBlamedOnTheJobFile() throws IOException {
        String url = stub(400, "{\"errors\":[\"--set no.such: no.such is not a known option; see docs/configuration.md\"]}");
        Path job = Files.writeString(dir.resolve("job.json"), "{}");

        int rc = launcher().execute("submit", job.toString(), "--node", url, "--token-file", token().toString(), "--set", "no.such=1");

        assertThat(rc).isEqualTo(ExitCodes.USAGE);
        assertThat(err().strip()).isEqualTo("error: --set no.such: no.such is not a known option; see docs/configuration.md");
    }

    @Test
    void aRefusedTokenIsExit1WithTheNodesReason() throws IOException {
        String url = stub(401, "{\"errors\":[\"the bearer token was rejected: Invalid signature\"]}");

        int rc = launcher().execute("cancel", "demo", "--node", url, "--token-file", token().toString());

        assertThat(rc).isEqualTo(ExitCodes.FAILED);
        assertThat(err().strip()).isEqualTo("error: the bearer token was rejected: Invalid signature");
        assertThat(received).containsExactly("PATCH /jobs/demo?mode=cancel | Bearer the-token | ");
    }

    @Test
    void aMissingTokenFileSaysWhereTheNodeWritesIt() {
        int rc = launcher().execute("cancel", "demo", "--node", "http://127.0.0.1:1");

        assertThat(rc).isEqualTo(ExitCodes.FAILED);
        assertThat(err()).contains("no token file at " + dir.resolve("data/security/admin.token"))
                .contains("DATA_DIR/security/admin.token").contains("--token-file");
    }

    @Test
    void aClientWithoutANodeGetsOneLine() throws IOException {
        int free;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
            free = s.getLocalPort();
        }

        int rc = launcher().execute("list", "--node", "http://127.0.0.1:" + free);

        assertThat(rc).isEqualTo(ExitCodes.FAILED);
        assertThat(err().strip()).isEqualTo("error: no Weir node is running at http://127.0.0.1:" + free
                + ": start one with 'weir node', or point --node (or WEIR_NODE) at a running one");
    }

    @Test
    void aNodeUrlThatIsNotHttpIsAUsageError() {
        int rc = launcher().execute("list", "--node", "ftp://example");

        assertThat(rc).isEqualTo(ExitCodes.USAGE);
        assertThat(err()).contains("must be an http URL");
    }

    @Test
    void listPrintsIdNameStatusUptimeAndLastCheckpoint() throws IOException {
        long now = System.currentTimeMillis();
        String url = stub(200, """
                {"jobs":[{"jid":"aaaa","name":"one","state":"RUNNING","start-time":1,"end-time":-1,"duration":125000,
                  "last-checkpoint":{"id":7,"trigger_timestamp":%d,"latest_ack_timestamp":%d,"end_to_end_duration":42}},
                 {"jid":"bbbb","name":"two","state":"CANCELED","start-time":1,"end-time":2,"duration":3000}]}"""
                .formatted(now - 5000, now - 4000));

        int rc = launcher().execute("list", "--node", url);

        assertThat(rc).as(err()).isZero();
        List<String> lines = out().lines().toList();
        assertThat(lines).hasSize(3);
        assertThat(lines.get(0)).startsWith("ID    NAME  STATUS    UPTIME  LAST CHECKPOINT");
        assertThat(lines.get(1)).startsWith("aaaa  one   RUNNING     2m5s").containsPattern("#7, [45]s ago, took 42 ms");
        assertThat(lines.get(2)).isEqualTo("bbbb  two   CANCELED      3s  -");
        assertThat(received).containsExactly("GET /jobs/overview | null | ");
    }
}
