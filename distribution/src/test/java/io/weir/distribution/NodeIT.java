package io.weir.distribution;

import io.weir.distribution.WeirProcesses.Run;
import io.weir.distribution.WeirProcesses.Truth;
import jakarta.json.JsonObject;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static io.weir.distribution.WeirProcesses.assertExactlyOnce;
import static io.weir.distribution.WeirProcesses.freePort;
import static io.weir.distribution.WeirProcesses.json;
import static io.weir.distribution.WeirProcesses.rows;
import static io.weir.distribution.WeirProcesses.savepointPath;
import static org.assertj.core.api.Assertions.assertThat;
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
    private static final long SEED = 7_2026_12_01L;

    @TempDir
    Path work;

    private NodeSession session;
    private HttpClient http;

    @BeforeEach
    void session() {
        session = new NodeSession(work);
        http = session.http();
    }

    @AfterEach
    void stopEverything() throws InterruptedException {
        session.stopAll();
    }

    @Test
    void nodeRunsTwoJobsAtOnceCancelsOneAndTheOtherCommitsExactlyOnce() throws Exception {
        int port = freePort();
        String url = "http://127.0.0.1:" + port;
        Path data = work.resolve("data");
        Process node = session.startNode(port, data, "node");
        session.awaitListening(node, port, "node");
        assertThat(Files.readString(data.resolve("security/admin.token")).strip()).as("admin token").isNotEmpty();

        // one long job to cancel, one that finishes; submitted at once
        Path cancelInput = work.resolve("to-cancel.jsonl");
        writeFlights(cancelInput, 60_000);
        Path cancelJob = writeJob("to-cancel", cancelInput, work.resolve("cp"), work.resolve("out-cancel"), 1);
        Path finishInput = work.resolve("to-finish.jsonl");
        Map<String, Truth> truth = writeFlights(finishInput, 6_000);
        Path finishOut = work.resolve("out-finish");
        Path finishJob = writeJob("to-finish", finishInput, work.resolve("cp"), finishOut, 1);

        Process submitA = session.weirAsync("submitA", "submit", cancelJob.toString(), "--node", url, "--data-dir", data.toString());
        Process submitB = session.weirAsync("submitB", "submit", finishJob.toString(), "--node", url, "--data-dir", data.toString(),
                "--set", "execution.checkpointing.interval=100 ms");
        Run a = session.finish(submitA, "submitA");
        Run b = session.finish(submitB, "submitB");
        assertThat(a.exitCode()).as(a.toString()).isZero();
        assertThat(a.out()).as(a.toString()).containsPattern("Submitted job to-cancel as [0-9a-f]{32} to " + url);
        assertThat(b.exitCode()).as(b.toString()).isZero();
        assertThat(b.out()).as(b.toString()).containsPattern("Submitted job to-finish as [0-9a-f]{32}");

        Run list = session.weir("list", "--node", url);
        assertThat(list.exitCode()).as(list.toString()).isZero();
        assertThat(list.out()).as(list.toString()).contains("to-cancel").contains("to-finish").contains("RUNNING")
                .startsWith("ID ");

        // a second submit of a running name: 409 through the CLI, exit 1
        Run again = session.weir("submit", cancelJob.toString(), "--node", url, "--data-dir", data.toString());
        assertThat(again.exitCode()).as(again.toString()).isEqualTo(1);
        assertThat(again.err()).as(again.toString()).contains("'to-cancel' is already RUNNING");

        // mutations without a token, or with a bad one, are refused
        HttpResponse<String> noToken = http.send(HttpRequest.newBuilder(URI.create(url + "/jobs/to-cancel?mode=cancel"))
                .method("PATCH", HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(noToken.statusCode()).isEqualTo(401);
        assertThat(json(noToken.body()).getJsonArray("errors").getString(0)).contains(data.resolve("security/admin.token").toString());
        Path badToken = Files.writeString(work.resolve("bad.token"), "eyJhbGciOiJSUzI1NiJ9.e30.c2ln");
        Run refused = session.weir("cancel", "to-cancel", "--node", url, "--token-file", badToken.toString());
        assertThat(refused.exitCode()).as(refused.toString()).isEqualTo(1);
        assertThat(refused.err()).as(refused.toString()).contains("rejected").doesNotContain("eyJhbGciOiJSUzI1NiJ9.e30.c2ln");
        Run noTokenFile = session.weir("cancel", "to-cancel", "--node", url, "--token-file", work.resolve("missing.token").toString());
        assertThat(noTokenFile.exitCode()).isEqualTo(1);
        assertThat(noTokenFile.err()).as(noTokenFile.toString()).contains("no token file at").contains("security/admin.token");
        assertThat(session.state(url, "to-cancel")).as("refused cancels changed nothing").isEqualTo("RUNNING");

        // cancel one: the other keeps running and finishes
        Run cancel = session.weir("cancel", "to-cancel", "--node", url, "--data-dir", data.toString());
        assertThat(cancel.exitCode()).as(cancel.toString()).isZero();
        assertThat(cancel.out()).as(cancel.toString()).contains("Job to-cancel CANCELED");

        await("to-finish FINISHED").atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(200))
                .until(() -> session.state(url, "to-finish"), s -> s.equals("FINISHED") || s.equals("FAILED") || s.equals("CANCELED"));
        assertThat(session.state(url, "to-finish")).isEqualTo("FINISHED");
        assertThat(session.state(url, "to-cancel")).isEqualTo("CANCELED");
        assertExactlyOnce(finishOut, truth);

        JsonObject checkpoints = session.get(url + "/jobs/to-finish/checkpoints");
        assertThat(checkpoints.getJsonObject("counts").getInt("completed")).isPositive();
        assertThat(checkpoints.getJsonObject("latest").getJsonObject("completed").getBoolean("is_final")).isTrue();
        JsonObject overview = session.get(url + "/overview");
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
        Process node = session.startNode(port, data, "node");
        session.awaitListening(node, port, "node");
        Path input = work.resolve("sp.jsonl");
        Map<String, Truth> truth = writeFlights(input, 40_000);
        Path out = work.resolve("out-sp");
        Path job = writeJob("to-stop", input, work.resolve("cp"), out, 1);
        Run submit = session.weir("submit", job.toString(), "--node", url, "--data-dir", data.toString());
        assertThat(submit.exitCode()).as(submit.toString()).isZero();

        Run checkpoint = session.weir("checkpoint", "to-stop", "--node", url, "--data-dir", data.toString());
        assertThat(checkpoint.exitCode()).as(checkpoint.toString()).isZero();
        assertThat(checkpoint.out()).as(checkpoint.toString()).containsPattern("Checkpoint \\d+ of job to-stop completed");

        Run savepoint = session.weir("savepoint", "to-stop", "nightly", "--node", url, "--data-dir", data.toString());
        assertThat(savepoint.exitCode()).as(savepoint.toString()).isZero();
        Path taken = savepointPath(savepoint, "Savepoint of job to-stop completed: ");
        assertThat(taken.getParent()).isEqualTo(data.resolve("savepoints/nightly"));
        assertThat(taken.resolve("_metadata")).isRegularFile();

        // a target outside the node's savepoint directory, and a mutation without a token, are refused
        Run outside = session.weir("savepoint", "to-stop", work.resolve("elsewhere").toString(), "--node", url, "--data-dir", data.toString());
        assertThat(outside.exitCode()).as(outside.toString()).isEqualTo(1);
        assertThat(outside.err()).as(outside.toString()).contains("outside the node's savepoint directory " + data.resolve("savepoints"));
        HttpResponse<String> noToken = http.send(HttpRequest.newBuilder(URI.create(url + "/jobs/to-stop/savepoints"))
                .POST(HttpRequest.BodyPublishers.ofString("{}")).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(noToken.statusCode()).isEqualTo(401);
        assertThat(session.state(url, "to-stop")).as("the job still runs (stop before its input ends)").isEqualTo("RUNNING");

        Run stop = session.weir("stop", "to-stop", "--node", url, "--data-dir", data.toString());
        assertThat(stop.exitCode()).as(stop.toString()).isZero();
        Path last = savepointPath(stop, "Job to-stop stopped with savepoint ");
        assertThat(last.getParent()).isEqualTo(data.resolve("savepoints"));
        assertThat(session.state(url, "to-stop")).isEqualTo("FINISHED");
        Run stopAgain = session.weir("stop", "to-stop", "--node", url, "--data-dir", data.toString());
        assertThat(stopAgain.exitCode()).as(stopAgain.toString()).isEqualTo(1);
        assertThat(stopAgain.err()).as(stopAgain.toString()).contains("FINISHED, not RUNNING");

        // the rest of the input, submitted again from the final savepoint: every update committed once overall
        Run resume = session.weir("submit", job.toString(), "--from-savepoint", last.toString(), "--node", url, "--data-dir", data.toString());
        assertThat(resume.exitCode()).as(resume.toString()).isZero();
        await("to-stop resumed and FINISHED").atMost(Duration.ofSeconds(120)).pollInterval(Duration.ofMillis(200))
                .until(() -> session.get(url + "/jobs/overview").getJsonArray("jobs").stream().map(j -> j.asJsonObject().getString("state"))
                        .filter(st -> !st.equals("FINISHED")).toList(), List::isEmpty);
        assertThat(session.get(url + "/jobs/overview").getJsonArray("jobs")).hasSize(2);
        assertExactlyOnce(out, truth);
        LOG.info("Node on port {}: stopped with {}, resumed by weir submit --from-savepoint; {} rows committed exactly once", port, last, rows(out).size());
    }

    @Test
    void aSecondNodeOnTheSamePortAndAClientWithoutANodeGetOneLine() throws Exception {
        int port = freePort();
        Process node = session.startNode(port, work.resolve("data"), "node");
        session.awaitListening(node, port, "node");

        Run second = session.weir("node", "--port", String.valueOf(port), "--data-dir", work.resolve("data2").toString());

        assertThat(second.exitCode()).as(second.toString()).isEqualTo(1);
        assertThat(second.err().strip()).as(second.toString())
                .isEqualTo("error: port " + port + " on 127.0.0.1 is in use (another weir node or program listens there);"
                        + " stop it or start with --port N");

        int nobody = freePort();
        Run list = session.weir("list", "--node", "http://127.0.0.1:" + nobody);
        assertThat(list.exitCode()).as(list.toString()).isEqualTo(1);
        assertThat(list.err().strip()).as(list.toString()).startsWith("error: no Weir node is running at http://127.0.0.1:" + nobody)
                .doesNotContain("\n").doesNotContain("Exception");
    }

    @Test
    void aKilledOrStoppedNodeResumesItsRunningJobWithTheSameIdAndItCommitsExactlyOnce() throws Exception {
        int port = freePort();
        String url = "http://127.0.0.1:" + port;
        Path data = work.resolve("data");
        Process node = session.startNode(port, data, "node");
        session.awaitListening(node, port, "node");

        Path input = work.resolve("slow.jsonl");
        Map<String, Truth> truth = writeFlights(input, 16_000);
        Path out = work.resolve("out-slow");
        Path job = writeJob("slow", input, work.resolve("cp"), out, 3); // ~24 s of work: it runs through both restarts
        Run submit = session.weir("submit", job.toString(), "--node", url, "--data-dir", data.toString());
        assertThat(submit.exitCode()).as(submit.toString()).isZero();
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("as ([0-9a-f]{32})").matcher(submit.out());
        assertThat(m.find()).as(submit.toString()).isTrue();
        String id = m.group(1);
        Path record = data.resolve("jobs").resolve(id).resolve("job.json");
        session.awaitCheckpoints(url, id, 0);

        // kill -9 the node's whole process tree: the registry still says RUNNING
        WeirProcesses.killWithDescendants(node);
        assertThat(json(Files.readString(record)).getString("status")).isEqualTo("RUNNING");

        Process second = session.startNode(port, data, "node2");
        session.awaitListening(second, port, "node2");
        await("job " + id + " resumed").atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(200))
                .until(() -> session.get(url + "/jobs").getJsonArray("jobs").stream().map(v -> v.asJsonObject())
                        .anyMatch(j -> j.getString("id").equals(id)));
        assertThat(session.get(url + "/jobs/" + id).getString("state")).as("resumed with the same id").isIn("RUNNING", "FINISHED");
        await("job " + id + " restored from its checkpoint").atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(100))
                .until(() -> session.get(url + "/jobs/" + id + "/checkpoints").getJsonObject("counts").getJsonNumber("restored").longValue() > 0);
        session.awaitCheckpoints(url, id, 0);

        // SIGTERM: a clean stop suspends the job; the registry says SUSPENDED
        second.destroy();
        assertThat(second.waitFor(20, TimeUnit.SECONDS)).as("node stopped within 20 s of SIGTERM").isTrue();
        assertThat(json(Files.readString(record)).getString("status")).isEqualTo("SUSPENDED");

        Process third = session.startNode(port, data, "node3");
        session.awaitListening(third, port, "node3");
        await("job " + id + " FINISHED").atMost(Duration.ofSeconds(120)).pollInterval(Duration.ofMillis(200))
                .until(() -> session.get(url + "/jobs").getJsonArray("jobs").stream().map(v -> v.asJsonObject())
                        .anyMatch(j -> j.getString("id").equals(id) && List.of("FINISHED", "FAILED", "CANCELED").contains(j.getString("status"))));
        assertThat(session.state(url, id)).isEqualTo("FINISHED");
        assertThat(json(Files.readString(record)).getString("status")).isEqualTo("FINISHED");
        assertExactlyOnce(out, truth);
        LOG.info("Job {} survived kill -9 and SIGTERM of its node; {} rows committed exactly once", id, rows(out).size());
    }

    @Test
    void infoShowsOperatorsAndTheLatestCheckpointTableAndTheDetailEndpointsAnswer() throws Exception {
        int port = freePort();
        String url = "http://127.0.0.1:" + port;
        Path data = work.resolve("data");
        Process node = session.startNode(port, data, "node");
        session.awaitListening(node, port, "node");
        Path input = work.resolve("info.jsonl");
        writeFlights(input, 60_000);
        Path job = writeJob("info-demo", input, work.resolve("cp"), work.resolve("out-info"), 1);
        Run submit = session.weir("submit", job.toString(), "--node", url, "--data-dir", data.toString());
        assertThat(submit.exitCode()).as(submit.toString()).isZero();
        session.awaitCheckpoints(url, "info-demo", 0);

        Run info = session.weir("info", "info-demo", "--node", url);

        assertThat(info.exitCode()).as(info.toString()).isZero();
        assertThat(info.out()).as(info.toString()).containsPattern("Job info-demo \\([0-9a-f]{32}\\)")
                .contains("Status: RUNNING, up ")
                .containsPattern("flights +file +source +1  -")
                .containsPattern("per-origin +keyed-aggregate +operator +2  flights")
                .containsPattern("Checkpoint [0-9]+: [0-9]+ bytes, [0-9]+ ms end to end; per subtask")
                .contains("vertex      subtask  start_delay")
                .containsPattern("(?m)^flights +0 ")
                .containsPattern("(?m)^per-origin +1 ");
        long cid = session.get(url + "/jobs/info-demo/checkpoints").getJsonObject("latest").getJsonObject("completed").getJsonNumber("id").longValue();
        JsonObject details = session.get(url + "/jobs/info-demo/checkpoints/details/" + cid);
        assertThat(details.getJsonObject("tasks").keySet()).contains("flights", "per-origin");
        assertThat(session.get(url + "/jobs/info-demo/checkpoints/details/" + cid + "/subtasks/per-origin").getJsonArray("subtasks")).hasSize(2);
        assertThat(session.get(url + "/jobs/info-demo/checkpoints/config").getJsonNumber("interval").longValue()).isEqualTo(100);
        assertThat(session.get(url + "/jobs/info-demo/exceptions").getJsonObject("exceptionHistory").getJsonArray("entries")).isEmpty();
        assertThat(session.get(url + "/openapi.json").getString("openapi")).startsWith("3.");
        Run unknown = session.weir("info", "nope", "--node", url);
        assertThat(unknown.exitCode()).as(unknown.toString()).isEqualTo(1);
        assertThat(unknown.err()).as(unknown.toString()).contains("'nope'");
    }

    /** Flights from this class's seed (one input per record count). */
    private static Map<String, Truth> writeFlights(Path file, int records) throws IOException {
        return WeirProcesses.writeFlights(file, records, SEED + records);
    }

    /** The flight-delays job on {@code input}, throttled by {@code sleepMs} per record, parallelism 2, checkpointing every 100 ms. */
    private static Path writeJob(String name, Path input, Path checkpoints, Path out, int sleepMs) throws IOException {
        return WeirProcesses.writeFlightJob(name + ".json", name, input, checkpoints, out, sleepMs, 2, Map.of());
    }
}
