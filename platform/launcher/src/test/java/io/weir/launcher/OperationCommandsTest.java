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
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code weir checkpoint}, {@code weir savepoint} and {@code weir stop} against a stub node that answers a scripted
 * sequence (the trigger, then status answers): what they send, what they print, their exit codes.
 */
class OperationCommandsTest {
    private static final String RID = "00112233445566778899aabbccddeeff";
    private static final String IN_PROGRESS = "200 {\"status\":{\"id\":\"IN_PROGRESS\"}}";

    @TempDir
    Path dir;

    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();
    private HttpServer server;
    /** Requests received: "METHOD path | Authorization | body". */
    private final List<String> received = new CopyOnWriteArrayList<>();

    @AfterEach
    void stopServer() {
        if (server != null) {
            server.stop(0);
        }
    }

    /** A stub node answering the scripted "STATUS body" lines in order (the last one repeats). */
    private String stub(String... answers) throws IOException {
        Deque<String> script = new ConcurrentLinkedDeque<>(List.of(answers));
        server = HttpServer.create(new InetSocketAddress(InetAddress.getByName("127.0.0.1"), 0), 0);
        server.createContext("/", (HttpExchange x) -> {
            received.add(x.getRequestMethod() + " " + x.getRequestURI().getRawPath() + " | "
                    + x.getRequestHeaders().getFirst("Authorization") + " | "
                    + new String(x.getRequestBody().readAllBytes(), StandardCharsets.UTF_8));
            String answer = script.size() > 1 ? script.poll() : script.peek();
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

    private int run(String... args) throws IOException {
        Path token = Files.writeString(dir.resolve("token"), "the-token\n");
        String[] all = new String[args.length + 2];
        System.arraycopy(args, 0, all, 0, args.length);
        all[args.length] = "--token-file";
        all[args.length + 1] = token.toString();
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
                new PrintStream(err, true, StandardCharsets.UTF_8), dir).execute(all);
    }

    private String out() {
        return out.toString(StandardCharsets.UTF_8);
    }

    private String err() {
        return err.toString(StandardCharsets.UTF_8);
    }

    @Test
    void savepointPostsTheTargetPollsAndPrintsThePath() throws IOException {
        String url = stub("202 {\"request-id\":\"" + RID + "\"}", IN_PROGRESS, IN_PROGRESS,
                "200 {\"status\":{\"id\":\"COMPLETED\"},\"operation\":{\"location\":\"/sp/savepoint-demo-0a1b2c\"}}");

        int rc = run("savepoint", "demo", "nightly", "--node", url);

        assertThat(rc).as(err()).isZero();
        assertThat(out()).contains("Taking a savepoint of job demo")
                .contains("Savepoint of job demo completed: /sp/savepoint-demo-0a1b2c");
        assertThat(received.get(0)).isEqualTo("POST /jobs/demo/savepoints | Bearer the-token | "
                + "{\"target-directory\":\"nightly\",\"cancel-job\":false}");
        assertThat(received.subList(1, received.size())).hasSize(3)
                .allSatisfy(r -> assertThat(r).startsWith("GET /jobs/demo/savepoints/" + RID + " | null"));
    }

    @Test
    void stopSendsFlinksStopBodyAndPollsTheSavepointStatus() throws IOException {
        String url = stub("202 {\"request-id\":\"" + RID + "\"}",
                "200 {\"status\":{\"id\":\"COMPLETED\"},\"operation\":{\"location\":\"/sp/savepoint-demo-ffffff\"}}");

        int rc = run("stop", "demo", "--drain", "--savepoint-dir", "/sp/final", "--node", url);

        assertThat(rc).as(err()).isZero();
        assertThat(out()).contains("Job demo stopped with savepoint /sp/savepoint-demo-ffffff");
        assertThat(received).containsExactly(
                "POST /jobs/demo/stop | Bearer the-token | {\"targetDirectory\":\"/sp/final\",\"drain\":true}",
                "GET /jobs/demo/savepoints/" + RID + " | null | ");
    }

    @Test
    void stopWithoutDirectoryLeavesItToTheNode() throws IOException {
        String url = stub("202 {\"request-id\":\"" + RID + "\"}",
                "200 {\"status\":{\"id\":\"COMPLETED\"},\"operation\":{\"location\":\"/sp/x\"}}");

        assertThat(run("stop", "demo", "--node", url)).as(err()).isZero();
        assertThat(received.get(0)).endsWith("{\"targetDirectory\":null,\"drain\":false}");
    }

    @Test
    void checkpointPrintsTheCheckpointId() throws IOException {
        String url = stub("202 {\"request-id\":\"" + RID + "\"}",
                "200 {\"status\":{\"id\":\"COMPLETED\"},\"operation\":{\"checkpointId\":42}}");

        int rc = run("checkpoint", "demo", "--node", url);

        assertThat(rc).as(err()).isZero();
        assertThat(out()).contains("Checkpoint 42 of job demo completed");
        assertThat(received.get(0)).isEqualTo("POST /jobs/demo/checkpoints | Bearer the-token | ");
    }

    @Test
    void aFailedSavepointIsExit1WithItsCauseInOneLine() throws IOException {
        String url = stub("202 {\"request-id\":\"" + RID + "\"}", "200 {\"status\":{\"id\":\"COMPLETED\"},\"operation\":"
                + "{\"failure-cause\":{\"class\":\"io.weir.core.checkpoint.CheckpointException\",\"message\":\"declined by map#0\","
                + "\"stack-trace\":\"...\"}}}");

        int rc = run("savepoint", "demo", "--node", url);

        assertThat(rc).isEqualTo(ExitCodes.FAILED);
        assertThat(err().strip()).contains("failed: io.weir.core.checkpoint.CheckpointException: declined by map#0")
                .doesNotContain("\n");
    }

    @Test
    void aTargetOutsideTheSavepointDirectoryIsExit1WithTheNodesReason() throws IOException {
        String url = stub("403 {\"errors\":[\"target directory '/tmp' is outside the node's savepoint directory /d/savepoints\"]}");

        int rc = run("savepoint", "demo", "/tmp", "--node", url);

        assertThat(rc).isEqualTo(ExitCodes.FAILED);
        assertThat(err()).contains("outside the node's savepoint directory /d/savepoints");
        assertThat(received).hasSize(1);
    }
}
