package io.weir.distribution;

import jakarta.json.JsonObject;
import jakarta.json.JsonValue;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Every job of a cluster visible and controllable from every member (docs/ha.md "REST and CLI"), with real processes:
 * three {@code bin/weir node --cluster}; a job submitted with {@code weir submit} to one member is listed by
 * {@code weir list} and {@code weir info} on another with the member that runs it; after {@code kill -9} of that member
 * it keeps its id and every surviving member shows its new owner; a savepoint and a cancel through a member that does
 * not run it act on it, and the cancelled job is not given to another member.
 */
class ClusterJobsIT {
    private static final Logger LOG = LoggerFactory.getLogger(ClusterJobsIT.class);
    /** Kept after a failing test: the nodes' stdout/stderr, the CLI runs' output, the data and checkpoints. */
    private static final Path LOGS = Path.of("target/cluster-jobs-it-logs").toAbsolutePath();
    /** More than the job may read: it never finishes (the test cancels it at the end). */
    private static final int RECORDS = 8_000;
    private static final int SLEEP_MS = 40;
    /**
     * What the source's {@code release-file} lets it read: 400 records, ~8 s of work at 40 ms per record over 2 subtasks.
     * Savepoints are aligned: with the whole file released, the savepoint's barrier queued behind the records buffered
     * before the sleeping aggregate and took over a minute (CI run, 2026-12-01); held, the job runs and checkpoints with
     * a backlog of at most 400 records whatever the load.
     */
    private static final int RELEASED = 400;
    private static final Duration WAIT = Duration.ofSeconds(120);

    private Path work;

    @BeforeEach
    void workDirectory(TestInfo test) throws IOException {
        work = Files.createDirectories(LOGS.resolve(test.getTestMethod().orElseThrow().getName() + "-" + System.currentTimeMillis()));
        LOG.info("Cluster jobs IT work directory (kept if the test fails): {}", work);
    }

    @Test
    void aJobKeepsItsIdAcrossAKillAndEveryMemberShowsItsOwnerSavepointsAndCancelsIt() throws Exception {
        Path input = work.resolve("flights.csv");
        WeirProcesses.writeFlights(input, RECORDS, 20_261_201L);
        Path gate = work.resolve("release");
        WeirProcesses.release(gate, RELEASED);
        Path job = PluginUpgradeIT.withReleaseFile(WeirProcesses.writeFlightJob("cj.json", "cj", input, work.resolve("cp"),
                work.resolve("out"), SLEEP_MS, 2, Map.of("execution.checkpointing.unaligned.enabled", "true")), gate);
        NodeSession cli = new NodeSession(work);
        try (HaCluster cluster = new HaCluster(work, 3)) {
            cluster.startAll();

            WeirProcesses.Run submit = cli.weir("submit", job.toString(), "--node", cluster.url(0), "--data-dir", data(0));
            assertThat(submit.exitCode()).as(submit.toString()).isZero();
            String id = listed(cluster, 1).getString("id");
            assertThat(id).matches("[0-9a-f]{32}");
            assertThat(submit.out()).contains("Submitted job cj as " + id);

            int owner = awaitRunningWithCheckpoint(cluster, id, List.of(0, 1, 2), -1);
            int other = (owner + 1) % 3;
            WeirProcesses.Run list = cli.weir("list", "--node", cluster.url(other));
            assertThat(list.out()).as(list.toString()).contains("NODE").contains(id).contains(cluster.url(owner));
            WeirProcesses.Run info = cli.weir("info", "cj", "--node", cluster.url(other));
            assertThat(info.exitCode()).as(info.toString()).isZero();
            assertThat(info.out()).contains("Job cj (" + id + ")").contains("Node: " + cluster.url(owner)).contains("per-origin");

            cluster.kill(owner);
            List<Integer> survivors = IntStream.range(0, 3).filter(i -> i != owner).boxed().toList();
            int next = awaitRunningWithCheckpoint(cluster, id, survivors, owner);
            for (int i : survivors) {
                assertThat(listed(cluster, i).getString("id")).as("the job's id on member %d after the move", i).isEqualTo(id);
            }

            int nonOwner = survivors.stream().filter(i -> i != next).findFirst().orElseThrow();
            WeirProcesses.Run savepoint = cli.weir("savepoint", id, "--node", cluster.url(nonOwner), "--data-dir", data(nonOwner),
                    "--timeout", "50"); // under NodeSession's 60 s for a CLI run: a slow savepoint fails with the CLI's message
            assertThat(savepoint.exitCode()).as(savepoint.toString()).isZero();
            Path taken = WeirProcesses.savepointPath(savepoint, "Savepoint of job " + id + " completed: ");
            assertThat(taken.resolve("_metadata")).as("the savepoint the owner %s took", cluster.url(next)).isRegularFile();
            assertThat(taken).as("in the owner's savepoint directory").startsWith(Path.of(data(next)));

            WeirProcesses.Run cancel = cli.weir("cancel", "cj", "--node", cluster.url(nonOwner), "--data-dir", data(nonOwner));
            assertThat(cancel.exitCode()).as(cancel.toString()).isZero();
            for (int i : survivors) {
                assertThat(listed(cluster, i).getString("status")).as("member %d", i).isEqualTo("CANCELED");
            }
            // not given to another member: the leader's next rounds (every 250 ms) leave it alone, and its run is gone
            await("the cancelled run ends on its owner").atMost(WAIT).pollInterval(Duration.ofMillis(250)).ignoreExceptions()
                    .until(() -> "CANCELED".equals(cluster.get(cluster.url(nonOwner) + "/jobs/" + id).getString("state")));
            for (int i : survivors) {
                JsonObject c = cluster.get(cluster.url(i) + "/cluster");
                assertThat(c.getJsonArray("members").getValuesAs(JsonObject.class))
                        .allSatisfy(m -> assertThat(m.getJsonArray("jobs")).as("jobs run by %s", m.getString("url")).isEmpty());
            }
        } catch (AssertionError | Exception e) {
            LOG.error("Cluster jobs IT failed; logs kept in {}", work);
            throw e;
        } finally {
            cli.stopAll();
        }
        deleteWork();
    }

    /**
     * Waits until every member in {@code members} lists the job RUNNING on one member other than {@code formerOwner},
     * and that member's run has completed a checkpoint (read through another member, so through the forwarding).
     *
     * @return the index of the member running it
     */
    private int awaitRunningWithCheckpoint(HaCluster cluster, String id, List<Integer> members, int formerOwner) {
        int[] owner = {-1};
        await("job " + id + " runs on one member, seen by " + members).atMost(WAIT).pollInterval(Duration.ofMillis(250))
                .ignoreExceptions().until(() -> {
                    String node = null;
                    for (int i : members) {
                        JsonObject j = listed(cluster, i);
                        if (!"RUNNING".equals(j.getString("status")) || j.getString("node").isEmpty()
                                || (node != null && !node.equals(j.getString("node")))) {
                            return false;
                        }
                        node = j.getString("node");
                    }
                    int at = cluster.indexOf(node).orElseThrow();
                    if (at == formerOwner) {
                        return false;
                    }
                    int via = members.stream().filter(i -> i != at).findFirst().orElse(at);
                    JsonObject checkpoints = cluster.get(cluster.url(via) + "/jobs/" + id + "/checkpoints");
                    owner[0] = at;
                    return checkpoints.getJsonObject("counts").getInt("completed") > 0;
                });
        LOG.info("Job {} runs on {} with a completed checkpoint", id, cluster.url(owner[0]));
        return owner[0];
    }

    /** @return job {@code cj} as member {@code i}'s {@code GET /jobs} lists it */
    private static JsonObject listed(HaCluster cluster, int i) throws IOException, InterruptedException {
        List<JsonObject> jobs = cluster.get(cluster.url(i) + "/jobs").getJsonArray("jobs").stream().map(JsonValue::asJsonObject)
                .filter(j -> "cj".equals(j.getString("name", ""))).toList();
        assertThat(jobs).as("member %d lists job cj once", i).hasSize(1);
        return jobs.get(0);
    }

    private String data(int i) {
        return work.resolve("n" + i).toString();
    }

    private void deleteWork() throws IOException {
        try (var paths = Files.walk(work)) {
            for (Path p : paths.sorted(java.util.Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        }
    }
}
