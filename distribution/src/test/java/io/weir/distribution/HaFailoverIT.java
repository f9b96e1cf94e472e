package io.weir.distribution;

import jakarta.json.JsonObject;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.TestInfo;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * High availability with real processes (docs/ha.md): three {@code bin/weir node --cluster} on 127.0.0.1 sharing one
 * checkpoint directory, jobs over generated flights (ground truth computed while writing them) into file-2pc sinks.
 * <ul>
 * <li>{@code kill -9} of the node owning a job, ten times (alternating between two jobs), each time restarting it once
 * the job processes elsewhere: both jobs finish, their committed output is exactly-once, and each job's checkpoint
 * ids strictly increase in the order they completed, across all owners and epochs;</li>
 * <li>a zombie: {@code kill -STOP} of the owner (not the leader: a lone job goes to the youngest member) until another
 * node completed a checkpoint of the job under a newer epoch (if the live nodes split instead, a Hazelcast defect with
 * an unresponsive member, docs/ha.md "A paused member": once more in a fresh cluster, then skipped), then
 * {@code kill -CONT}: the old owner stops its run, completes nothing after the new owner's first checkpoint nor after
 * waking, does not take the job back on its stale view, and the output is still exactly-once. Its timeline
 * (from every node's log) is logged.</li>
 * </ul>
 */
class HaFailoverIT {
    private static final Logger LOG = LoggerFactory.getLogger(HaFailoverIT.class);
    /** Kept after a failing test: the nodes' stdout/stderr of every start, their data and the checkpoints. */
    private static final Path LOGS = Path.of("target/ha-it-logs").toAbsolutePath();
    private static final int KILLS = 10;
    private static final Duration FINISH = Duration.ofMinutes(20);
    /**
     * Pause per record of the jobs' aggregates, so that records flow while nodes are killed. Whether a job outlives the
     * kills does not depend on it: each job's file source is held by its {@code release-file} ({@link #GATE_STEP} more
     * records after every kill, never the whole file before the last kill) and released in full only after the kills.
     */
    private static final int SLEEP_MS = Integer.getInteger("ha.it.sleep-ms", 20);
    /** Clusters the zombie test tries before it gives up on Hazelcast keeping the live nodes together (then: skipped). */
    private static final int PAUSE_ATTEMPTS = 2;
    /** Records each job's gate releases at the start and after every kill: 1,000 (of 12,000; 11,000 after the 10th kill). */
    private static final int GATE_STEP = 1_000;
    /**
     * Unaligned checkpoints: with aligned ones a barrier waits behind every queued record (sleeping per record), so a
     * restored run's first checkpoint took minutes under load; what is tested here is ownership, not alignment.
     */
    private static final Map<String, String> JOB_CONFIG = Map.of("execution.checkpointing.unaligned.enabled", "true");

    /** Log lines that tell a takeover's story: ownership, leases, and Hazelcast's suspicions, claims, member lists and merges. */
    private static final String TAKEOVER_EVENTS = "ha-z|Suspecting|did not run for|Taking no job|takes jobs again|not renewed|files are kept"
            + "|Completed-checkpoint store|refused|mastership|Mastership|Members \\{|Removing Member|merge|majority";

    /** Where the nodes write their logs and data: kept when a test fails, deleted when it passes. */
    private Path work;

    @BeforeEach
    void workDirectory(TestInfo test) throws IOException {
        work = Files.createDirectories(LOGS.resolve(test.getTestMethod().orElseThrow().getName() + "-" + System.currentTimeMillis()));
        LOG.info("HA IT work directory (kept if the test fails): {}", work);
    }

    /** Called as a test's last statement, so only a passing test's directory goes ({@code -Dha.it.keep=true} keeps it). */
    private void deleteWork() throws IOException {
        if (Boolean.getBoolean("ha.it.keep")) {
            return;
        }
        try (var paths = Files.walk(work)) {
            for (Path p : paths.sorted(java.util.Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        }
    }

    @Test
    void killingTheOwnerTenTimesKeepsBothJobsExactlyOnceWithCheckpointIdsIncreasingAcrossOwners() throws Exception {
        Path checkpoints = work.resolve("checkpoints");
        Map<String, WeirProcesses.Truth> truthA = WeirProcesses.writeFlights(work.resolve("a.jsonl"), 12_000, 11);
        Map<String, WeirProcesses.Truth> truthB = WeirProcesses.writeFlights(work.resolve("b.jsonl"), 12_000, 22);
        Path gateA = work.resolve("release-a");
        Path gateB = work.resolve("release-b");
        WeirProcesses.release(gateA, GATE_STEP);
        WeirProcesses.release(gateB, GATE_STEP);
        Path jobA = PluginUpgradeIT.withReleaseFile(WeirProcesses.writeFlightJob("a.json", "ha-a", work.resolve("a.jsonl"), checkpoints,
                work.resolve("out-a"), SLEEP_MS, 2, JOB_CONFIG), gateA);
        Path jobB = PluginUpgradeIT.withReleaseFile(WeirProcesses.writeFlightJob("b.json", "ha-b", work.resolve("b.jsonl"), checkpoints,
                work.resolve("out-b"), SLEEP_MS, 2, JOB_CONFIG), gateB);
        try (HaCluster cluster = new HaCluster(work, 3)) {
            cluster.startAll();
            cluster.submit(0, jobA);
            cluster.submit(1, jobB);
            List<Long> failoverMs = new ArrayList<>();
            for (int kill = 0; kill < KILLS; kill++) {
                String job = running(cluster, kill % 2 == 0 ? "ha-a" : "ha-b");
                if (job == null) {
                    break; // both finished: the output is still checked below, then the kill count
                }
                int owner = awaitOwnerWithCheckpoint(cluster, job);
                // a node that died on its own would make the measured failover meaningless (seen once: 13 ms)
                assertThat(cluster.alive(owner)).as("node %d, owner of %s, died before kill %d (its logs: n%d-*-stderr.txt in %s)",
                        owner, job, kill + 1, owner, work).isTrue();
                long killedAt = System.currentTimeMillis();
                cluster.kill(owner);
                int survivor = (owner + 1) % 3;
                await(job + " processing on another node after kill " + (kill + 1)).atMost(Duration.ofSeconds(120))
                        .pollInterval(Duration.ofMillis(50)).ignoreExceptions()
                        .until(() -> completedAfter(cluster, job, killedAt, cluster.url(owner)));
                // not the killed owner's own completions logged while the signal was on its way (seen: "after 1 ms")
                long processing = cluster.completions().stream().filter(c -> c.job().equals(job) && c.atMillis() > killedAt
                                && !c.node().startsWith("n" + owner + "-"))
                        .mapToLong(HaCluster.Completion::atMillis).min().orElseThrow();
                failoverMs.add(processing - killedAt);
                LOG.info("Kill {} of node {} (owner of {}): first checkpoint elsewhere after {} ms", kill + 1, owner, job,
                        processing - killedAt);
                cluster.start(owner);
                for (int i = 0; i < 3; i++) {
                    cluster.awaitMembers(i, 3);
                }
                WeirProcesses.release(gateA, GATE_STEP * (kill + 2));
                WeirProcesses.release(gateB, GATE_STEP * (kill + 2));
            }
            LOG.info("Kill -9 -> checkpoint elsewhere, ms: {}", failoverMs);
            Files.delete(gateA);
            Files.delete(gateB);
            await("both jobs FINISHED").atMost(FINISH).pollInterval(Duration.ofMillis(500)).ignoreExceptions()
                    .until(() -> "FINISHED".equals(cluster.jobs(0).get("ha-a").getString("status"))
                            && "FINISHED".equals(cluster.jobs(0).get("ha-b").getString("status")));
            WeirProcesses.assertExactlyOnce(work.resolve("out-a"), truthA);
            WeirProcesses.assertExactlyOnce(work.resolve("out-b"), truthB);
            assertIdsIncreaseAcrossOwners(cluster.completions(), "ha-a");
            assertIdsIncreaseAcrossOwners(cluster.completions(), "ha-b");
            assertThat(failoverMs).as("kills done before both jobs finished (their gates hold them until the last kill)").hasSize(KILLS);
        }
        deleteWork();
    }

    @Test
    void aPausedOwnerIsFencedOffStopsItsRunAndTheOutputStaysExactlyOnce() throws Exception {
        for (int attempt = 1; attempt <= PAUSE_ATTEMPTS; attempt++) {
            if (pausedOwnerScenario(Files.createDirectories(work.resolve("attempt-" + attempt)))) {
                deleteWork();
                return;
            }
            LOG.warn("Attempt {} of {}: the two live nodes split while the owner was paused and no takeover followed "
                    + "(Hazelcast issue 26388, docs/ha.md 'A paused member'); its logs are kept in {}", attempt, PAUSE_ATTEMPTS, work);
        }
        Assumptions.abort("in each of " + PAUSE_ATTEMPTS + " attempts the live nodes split while the owner was paused "
                + "(Hazelcast issue 26388, docs/ha.md 'A paused member'): the fencing of a paused owner was not exercised; logs in " + work);
    }

    /**
     * The zombie scenario in a fresh cluster under {@code dir}.
     *
     * @return true once it ran through and every assertion held; false if no other node took the job over while the
     *         owner was paused and meanwhile a live node saw itself alone (the survivors split: a Hazelcast defect with
     *         an unresponsive member, docs/ha.md), so the scenario could not be exercised
     * @throws AssertionError if an assertion fails, or no takeover happened without such a split
     */
    private boolean pausedOwnerScenario(Path dir) throws Exception {
        Path checkpoints = dir.resolve("checkpoints");
        Map<String, WeirProcesses.Truth> truth = WeirProcesses.writeFlights(dir.resolve("z.jsonl"), 6_000, 33);
        Path gate = dir.resolve("release-z");
        WeirProcesses.release(gate, 3_000); // held mid-stream until the former owner woke up, whatever the load
        Path job = PluginUpgradeIT.withReleaseFile(WeirProcesses.writeFlightJob("z.json", "ha-z", dir.resolve("z.jsonl"), checkpoints,
                dir.resolve("out-z"), 15, 2, JOB_CONFIG), gate);
        try (HaCluster cluster = new HaCluster(dir, 3)) {
            cluster.startAll();
            cluster.submit(2, job);
            int owner = awaitOwnerWithCheckpoint(cluster, "ha-z");
            // a lone job goes to the youngest member, not to the leader (Hazelcast's master): its move then comes without
            // a mastership change on top (docs/ha.md "A paused member")
            assertThat(cluster.leader(owner)).as("the leader, with ha-z owned by node %d", owner).isNotEqualTo(cluster.url(owner));
            String ownerLogs = "n" + owner + "-";
            long oldEpoch = cluster.jobs((owner + 1) % 3).get("ha-z").getJsonNumber("epoch").longValue();
            long signalledAt = System.currentTimeMillis();
            cluster.signal(owner, "STOP");
            long pausedAt = System.currentTimeMillis(); // kill -STOP returned: every thread of the owner is stopped
            int other = (owner + 1) % 3;
            // processing elsewhere: a completion by another node under a newer epoch (the paused owner's own completions
            // logged between the signal and the stop are not; counting them gave "after 3 ms" on 2026-12-01)
            boolean[] alone = new boolean[1];
            try {
                await("ha-z processing on another node while its owner is paused").atMost(Duration.ofSeconds(120))
                        .pollInterval(Duration.ofMillis(100)).ignoreExceptions()
                        .until(() -> {
                            for (int i = 0; i < 3; i++) {
                                if (i != owner && cluster.members(i) < 2) {
                                    alone[0] = true;
                                }
                            }
                            return firstElsewhere(cluster, ownerLogs, oldEpoch) != null;
                        });
            } catch (org.awaitility.core.ConditionTimeoutException e) {
                // the work directory is kept, but CI shows only this output: the membership story of the failed takeover
                LOG.error("No takeover while node {} was paused (STOP returned at {}; a live node alone meanwhile: {}); timeline:\n{}",
                        owner, pausedAt, alone[0], String.join("\n", cluster.timeline(TAKEOVER_EVENTS)));
                if (alone[0]) {
                    return false;
                }
                throw e;
            }
            HaCluster.Completion moved = firstElsewhere(cluster, ownerLogs, oldEpoch);
            LOG.info("kill -STOP -> checkpoint {} under epoch {} on {} after {} ms", moved.checkpointId(), moved.epoch(), moved.node(),
                    moved.atMillis() - pausedAt);
            assertThat(cluster.jobs(other).get("ha-z").getJsonNumber("epoch").longValue()).isGreaterThan(oldEpoch);
            long continuedAt = System.currentTimeMillis();
            cluster.signal(owner, "CONT");
            await("the former owner stops its run").atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(100))
                    .until(() -> cluster.allLogs(owner).contains("Stopping this node's run of job ha-z (epoch " + oldEpoch + ")"));
            Files.delete(gate);
            await("ha-z FINISHED").atMost(FINISH).pollInterval(Duration.ofMillis(500)).ignoreExceptions()
                    .until(() -> "FINISHED".equals(cluster.jobs(other).get("ha-z").getString("status")));
            List<HaCluster.Completion> completions = cluster.completions();
            LOG.info("Zombie timeline (signal STOP sent {}, returned {}, CONT sent {}; epoch millis):\n{}", signalledAt, pausedAt,
                    continuedAt, String.join("\n", cluster.timeline(TAKEOVER_EVENTS)));
            List<HaCluster.Completion> oldOwners = completions.stream()
                    .filter(c -> c.job().equals("ha-z") && c.node().startsWith(ownerLogs) && c.epoch() == oldEpoch).toList();
            LOG.info("The paused owner's completions under epoch {}: {}", oldEpoch, oldOwners);
            // A completion is logged after the store add; a STOP between the two (seen in CI, 2026-12-01) logs one on
            // waking whose store write came before the pause: the new owner found it stored when it claimed the store
            // and restored from it. Only a checkpoint newer than that one would have completed behind the new owner.
            long storedAtClaim = newestStoredAtClaim(cluster, oldEpoch);
            assertThat(oldOwners).as("checkpoints the paused owner completed after the new owner's first (%s) that the new "
                    + "owner did not find stored when it claimed the store (newest stored then: %d)", moved, storedAtClaim)
                    .filteredOn(c -> c.atMillis() >= moved.atMillis() && c.checkpointId() > storedAtClaim).isEmpty();
            assertThat(oldOwners).as("checkpoints the paused owner completed after kill -CONT that the new owner did not "
                    + "find stored (newest stored then: %d)", storedAtClaim)
                    .filteredOn(c -> c.atMillis() >= continuedAt && c.checkpointId() > storedAtClaim).isEmpty();
            assertThat(cluster.allLogs(owner)).as("the woken owner must not take the job back on its stale view")
                    .doesNotContain("Job ha-z reclaimed by this node");
            // the fenced former owner may leave in-progress files it wrote after SIGCONT: never committed, removed at the
            // job's next restore (docs/ha.md)
            WeirProcesses.assertCommittedExactlyOnce(dir.resolve("out-z"), truth);
            // such a late log line (a checkpoint stored before the claim, logged after the new owner's first completion;
            // CI 2026-12-01 twice) is ordered by its store add, not by its line: it is left out of the ordering check
            List<HaCluster.Completion> ordered = completions.stream().filter(c -> !(c.job().equals("ha-z")
                    && c.node().startsWith(ownerLogs) && c.epoch() == oldEpoch && c.atMillis() >= moved.atMillis()
                    && c.checkpointId() <= storedAtClaim)).toList();
            assertIdsIncreaseAcrossOwners(ordered, "ha-z");
        }
        return true;
    }

    /**
     * @return the newest checkpoint id of ha-z in the completed-checkpoint store when a node claimed it under an epoch
     *         newer than {@code oldEpoch} (its log line "completed-checkpoint store claimed under epoch E (newest stored
     *         checkpoint N)")
     * @throws AssertionError if no node logged such a claim
     */
    private static long newestStoredAtClaim(HaCluster cluster, long oldEpoch) throws IOException {
        java.util.regex.Pattern claim = java.util.regex.Pattern.compile(
                "Job ha-z: completed-checkpoint store claimed under epoch (\\d+) \\(newest stored checkpoint (\\d+)\\)");
        long newest = -1;
        for (int i = 0; i < 3; i++) {
            java.util.regex.Matcher m = claim.matcher(cluster.allLogs(i));
            while (m.find()) {
                if (Long.parseLong(m.group(1)) > oldEpoch) {
                    newest = newest < 0 ? Long.parseLong(m.group(2)) : Math.min(newest, Long.parseLong(m.group(2)));
                }
            }
        }
        assertThat(newest).as("a claim of ha-z's completed-checkpoint store under an epoch after %d", oldEpoch).isNotNegative();
        return newest;
    }

    /** @return the first completion of ha-z by a node other than the one whose logs start with {@code ownerLogs}, under a newer epoch */
    private static HaCluster.Completion firstElsewhere(HaCluster cluster, String ownerLogs, long oldEpoch) throws IOException {
        return cluster.completions().stream()
                .filter(c -> c.job().equals("ha-z") && !c.node().startsWith(ownerLogs) && c.epoch() > oldEpoch)
                .findFirst().orElse(null);
    }

    /** @return {@code preferred} if it runs, else the other job; null if neither runs any more */
    private static String running(HaCluster cluster, String preferred) throws Exception {
        Map<String, JsonObject> jobs = awaitAnswer(cluster);
        String other = preferred.equals("ha-a") ? "ha-b" : "ha-a";
        for (String name : List.of(preferred, other)) {
            JsonObject j = jobs.get(name);
            if (j != null && "RUNNING".equals(j.getString("status"))) {
                return name;
            }
        }
        LOG.warn("Both jobs ended before all kills were done: {}", jobs);
        return null;
    }

    private static Map<String, JsonObject> awaitAnswer(HaCluster cluster) {
        Map<String, JsonObject>[] jobs = new Map[1];
        await("an answer from a live node").atMost(Duration.ofSeconds(60)).ignoreExceptions().until(() -> {
            for (int i = 0; i < cluster.size(); i++) {
                if (cluster.alive(i)) {
                    try {
                        jobs[0] = cluster.jobs(i);
                        return true;
                    } catch (java.io.IOException e) {
                        // a paused node does not answer (5 s timeout): ask the next one
                    }
                }
            }
            return false;
        });
        return jobs[0];
    }

    /** Waits until {@code job} has an owner that completed a checkpoint of it under the job's current epoch; returns its index. */
    private static int awaitOwnerWithCheckpoint(HaCluster cluster, String job) {
        int[] owner = new int[1];
        await(job + " running on an owner with a completed checkpoint").atMost(Duration.ofSeconds(180)).pollInterval(Duration.ofMillis(100))
                .ignoreExceptions().until(() -> {
                    JsonObject j = awaitAnswer(cluster).get(job);
                    long epoch = j.getJsonNumber("epoch").longValue();
                    owner[0] = cluster.indexOf(j.getString("owner")).orElseThrow();
                    return cluster.completions().stream().anyMatch(c -> c.job().equals(job) && c.epoch() == epoch);
                });
        return owner[0];
    }

    /** @return whether a node other than {@code formerOwner} completed a checkpoint of {@code job} after {@code since} */
    private static boolean completedAfter(HaCluster cluster, String job, long since, String formerOwner) throws Exception {
        JsonObject j = awaitAnswer(cluster).get(job);
        if (j.getString("owner").equals(formerOwner) || j.getString("owner").isEmpty()) {
            return false;
        }
        long epoch = j.getJsonNumber("epoch").longValue();
        return cluster.completions().stream().anyMatch(c -> c.job().equals(job) && c.epoch() == epoch && c.atMillis() > since);
    }

    /** In completion order, a job's checkpoint ids strictly increase and its epochs never decrease. */
    private static void assertIdsIncreaseAcrossOwners(List<HaCluster.Completion> completions, String job) {
        List<HaCluster.Completion> mine = completions.stream().filter(c -> c.job().equals(job)).toList();
        assertThat(mine).as("completions of %s", job).isNotEmpty();
        for (int i = 1; i < mine.size(); i++) {
            assertThat(mine.get(i).checkpointId()).as("checkpoint after %s", mine.get(i - 1)).isGreaterThan(mine.get(i - 1).checkpointId());
            assertThat(mine.get(i).epoch()).as("epoch after %s", mine.get(i - 1)).isGreaterThanOrEqualTo(mine.get(i - 1).epoch());
        }
        LOG.info("{}: {} checkpoints completed, ids {}..{}, epochs {}..{}", job, mine.size(), mine.get(0).checkpointId(),
                mine.get(mine.size() - 1).checkpointId(), mine.get(0).epoch(), mine.get(mine.size() - 1).epoch());
    }
}
