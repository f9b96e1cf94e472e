package io.weir.distribution;

import io.weir.distribution.WeirProcesses.Truth;
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

import static io.weir.distribution.WeirProcesses.assertExactlyOnce;
import static io.weir.distribution.WeirProcesses.rows;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A plugin upgrade under a cluster job (issue 8 in a cluster, docs/plugins.md "Cluster jobs"), with real processes: two
 * {@code bin/weir node --cluster}, each from its own copy of the distribution (plugins are per node); the flights job,
 * held mid-stream by its source's release gate, runs on one member; {@code operators-basic}'s jar in <em>that</em>
 * member's {@code plugins/} is replaced in place by the 1.1 example. The job moves on its owner: same id, same owner,
 * its checkpoints after the switch completed under the same epoch, rows after the switch carry 1.1's stddev column,
 * and the committed output is exactly once against a ground truth.
 */
class PluginUpgradeClusterIT {
    private static final Logger LOG = LoggerFactory.getLogger(PluginUpgradeClusterIT.class);
    /** Kept after a failing test: the nodes' stdout/stderr, the data and checkpoints. */
    private static final Path LOGS = Path.of("target/plugin-upgrade-cluster-it-logs").toAbsolutePath();
    private static final int RECORDS = 12_000;
    private static final int STEP = 3_000;
    private static final Duration WAIT = Duration.ofSeconds(120);

    private Path work;

    @BeforeEach
    void workDirectory(TestInfo test) throws IOException {
        work = Files.createDirectories(LOGS.resolve(test.getTestMethod().orElseThrow().getName() + "-" + System.currentTimeMillis()));
        LOG.info("Plugin upgrade cluster IT work directory (kept if the test fails): {}", work);
    }

    @Test
    void replacingAPluginJarOnTheOwnerMovesTheClusterJobThereKeepingIdOwnerAndEpochExactlyOnce() throws Exception {
        Path input = work.resolve("flights.jsonl");
        Map<String, Truth> truth = WeirProcesses.writeFlights(input, RECORDS, 20_261_208L);
        Path out = work.resolve("out");
        Path gate = work.resolve("release");
        WeirProcesses.release(gate, STEP);
        Path job = PluginUpgradeIT.withReleaseFile(WeirProcesses.writeFlightJob("up.json", "up", input, work.resolve("cp"), out, 0,
                2, Map.of()), gate);
        List<Path> homes = List.of(PluginUpgradeIT.privateDistribution(work.resolve("h0")),
                PluginUpgradeIT.privateDistribution(work.resolve("h1")));
        NodeSession cli = new NodeSession(work);
        try (HaCluster cluster = new HaCluster(work, homes)) {
            cluster.startAll();
            WeirProcesses.Run submit = cli.weir("submit", job.toString(), "--node", cluster.url(0), "--data-dir",
                    work.resolve("n0").toString());
            assertThat(submit.exitCode()).as(submit.toString()).isZero();
            await(STEP + " rows committed").atMost(WAIT).pollInterval(Duration.ofMillis(200)).until(() -> rows(out).size() >= STEP);
            JsonObject listed = listed(cluster);
            String id = listed.getString("id");
            int owner = cluster.indexOf(listed.getString("node")).orElseThrow();
            String ownerUrl = cluster.url(owner);
            assertThat(aggregateVersion(cluster, ownerUrl, id)).startsWith("0.1.0");
            long epoch = epochOf(cluster, owner);

            WeirProcesses.release(gate, 2 * STEP);
            PluginUpgradeIT.atomicReplace(PluginUpgradeIT.exampleJar(),
                    homes.get(owner).resolve("plugins").resolve(PluginUpgradeIT.SHIPPED_JAR));
            await("moved to 1.1.0 on its owner").atMost(WAIT).pollInterval(Duration.ofMillis(200)).ignoreExceptions()
                    .until(() -> {
                        List<JsonObject> moves = cluster.get(ownerUrl + "/jobs/" + id).getJsonArray("upgrades")
                                .getValuesAs(JsonObject.class);
                        return !moves.isEmpty() && moves.get(moves.size() - 1).getString("outcome").equals("UPGRADED");
                    });
            assertThat(aggregateVersion(cluster, ownerUrl, id)).isEqualTo("1.1.0");
            JsonObject after = listed(cluster);
            assertThat(after.getString("id")).isEqualTo(id);
            assertThat(after.getString("status")).isEqualTo("RUNNING");
            assertThat(after.getString("node")).as("the same owner").isEqualTo(ownerUrl);
            long completionsBefore = cluster.completions().stream().filter(c -> c.job().equals("up")).count();
            WeirProcesses.release(gate, 3 * STEP);
            await(3 * STEP + " rows committed").atMost(WAIT).pollInterval(Duration.ofMillis(200))
                    .until(() -> rows(out).size() >= 3 * STEP);
            assertThat(cluster.completions().stream().filter(c -> c.job().equals("up")).toList())
                    .as("checkpoints of the moved run completed under the owner's epoch").hasSizeGreaterThan((int) completionsBefore)
                    .allSatisfy(c -> assertThat(c.epoch()).isEqualTo(epoch));

            Files.delete(gate);
            await("finished").atMost(Duration.ofSeconds(180)).pollInterval(Duration.ofMillis(250)).ignoreExceptions()
                    .until(() -> listed(cluster).getString("status"), s -> List.of("FINISHED", "FAILED", "CANCELED").contains(s));
            assertThat(listed(cluster).getString("status")).isEqualTo("FINISHED");
            assertExactlyOnce(out, truth);
            PluginUpgradeIT.assertStddevFromTheSwitchOn(out);
        } catch (AssertionError | Exception e) {
            LOG.error("Plugin upgrade cluster IT failed; logs kept in {}", work);
            throw e;
        } finally {
            cli.stopAll();
        }
    }

    /** @return the epoch of the owner's checkpoint completions so far (one owner, one epoch), at least one logged */
    private static long epochOf(HaCluster cluster, int owner) {
        long[] epoch = {-1};
        await("a checkpoint logged with its epoch").atMost(WAIT).pollInterval(Duration.ofMillis(200)).until(() -> {
            List<HaCluster.Completion> cs = cluster.completions().stream().filter(c -> c.job().equals("up")).toList();
            cs.forEach(c -> assertThat(c.node()).startsWith("n" + owner + "-"));
            epoch[0] = cs.isEmpty() ? -1 : cs.get(0).epoch();
            return !cs.isEmpty();
        });
        return epoch[0];
    }

    private static String aggregateVersion(HaCluster cluster, String url, String id) throws IOException, InterruptedException {
        return cluster.get(url + "/jobs/" + id).getJsonArray("plugin-versions").getValuesAs(JsonObject.class).stream()
                .filter(p -> p.getString("operator").equals("per-origin")).map(p -> p.getString("version")).findFirst().orElse("");
    }

    private static JsonObject listed(HaCluster cluster) throws IOException, InterruptedException {
        List<JsonObject> jobs = cluster.get(cluster.url(0) + "/jobs").getJsonArray("jobs").stream().map(JsonValue::asJsonObject)
                .filter(j -> "up".equals(j.getString("name", ""))).toList();
        assertThat(jobs).hasSize(1);
        return jobs.get(0);
    }
}
