package io.weir.distribution;

import io.weir.distribution.WeirProcesses.Run;
import io.weir.distribution.WeirProcesses.Truth;
import jakarta.json.JsonObject;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import static io.weir.distribution.WeirProcesses.assertExactlyOnce;
import static io.weir.distribution.WeirProcesses.freePort;
import static io.weir.distribution.WeirProcesses.rows;
import static io.weir.distribution.WeirProcesses.writeFlightJob;
import static io.weir.distribution.WeirProcesses.writeFlights;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Measures the node's in-place upgrade downtime (issue 8: under 300 ms from the last record on the old version to the
 * first on the new one), on {@link PluginUpgradeIT}'s set-up: the flights job on a standalone node from the
 * distribution, {@code operators-basic}'s jar replaced in place {@value #UPGRADES} times in a row (the example 1.1 jar
 * at Bundle-Version 1.1.0, 1.2.0, ...), each time waiting for the move to pass its probation. Records flow across every
 * switch: the source's release gate is raised by {@value #TRICKLE} records every {@value #TRICKLE_MS} ms by a feeder
 * thread, so the new run's first row is never held back by the gate. Logs every downtime (the node's {@code
 * downtime-ms}), the median and the max, then checks the output exactly once against a ground truth.
 *
 * <p>A measurement, not part of the suite: runs only with {@code -Dweir.measure.upgrade-downtime=true}
 * ({@code mvn -o -B verify -pl distribution -am -Dtest=none -Dsurefire.failIfNoSpecifiedTests=false
 * -Dit.test=PluginUpgradeDowntimeIT -Dweir.measure.upgrade-downtime=true}).
 */
@EnabledIfSystemProperty(named = "weir.measure.upgrade-downtime", matches = "true")
class PluginUpgradeDowntimeIT {
    private static final Logger LOG = LoggerFactory.getLogger(PluginUpgradeDowntimeIT.class);
    private static final long SEED = 8_2026_12_02L;
    private static final int RECORDS = 200_000;
    private static final int UPGRADES = 6;
    private static final int TRICKLE = 40;
    private static final long TRICKLE_MS = 20;
    private static final Duration WAIT = Duration.ofSeconds(120);

    @TempDir
    Path work;

    private NodeSession session;
    private final AtomicBoolean feeding = new AtomicBoolean(true);

    @AfterEach
    void stopEverything() throws InterruptedException {
        feeding.set(false);
        if (session != null) {
            session.stopAll();
        }
    }

    @Test
    void inPlaceUpgradesOfARunningJobMeasureTheirDowntimeAndStayExactlyOnce() throws Exception {
        Path home = PluginUpgradeIT.privateDistribution(work);
        session = new NodeSession(work, home.resolve("bin/weir"));
        int port = freePort();
        String url = "http://127.0.0.1:" + port;
        Path data = work.resolve("data");
        Process n = session.startNode(port, data, "node");
        session.awaitListening(n, port, "node");

        Path input = work.resolve("flights.jsonl");
        Map<String, Truth> truth = writeFlights(input, RECORDS, SEED);
        Path out = work.resolve("out");
        Path gate = work.resolve("release");
        AtomicInteger released = new AtomicInteger(TRICKLE);
        WeirProcesses.release(gate, released.get());
        Path job = PluginUpgradeIT.withReleaseFile(writeFlightJob("downtime.json", "upgrade", input, work.resolve("cp"), out, 0, 2,
                Map.of()), gate);
        Run submit = session.weir("submit", job.toString(), "--node", url, "--data-dir", data.toString());
        assertThat(submit.exitCode()).as(submit.toString()).isZero();
        Thread feeder = new Thread(() -> {
            while (feeding.get() && released.get() < RECORDS) {
                try {
                    WeirProcesses.release(gate, released.addAndGet(TRICKLE));
                    Thread.sleep(TRICKLE_MS);
                } catch (IOException e) {
                    throw new java.io.UncheckedIOException(e);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                }
            }
        }, "release-feeder");
        feeder.setDaemon(true);
        feeder.start();
        await("rows committed").atMost(WAIT).pollInterval(Duration.ofMillis(100)).until(() -> rows(out).size() >= 500);

        Path plugin = home.resolve("plugins").resolve(PluginUpgradeIT.SHIPPED_JAR);
        Path example = PluginUpgradeIT.exampleJar();
        List<Long> downtimes = new ArrayList<>();
        for (int i = 1; i <= UPGRADES; i++) {
            String version = "1." + i + ".0";
            Path jar = PluginUpgradeIT.withBundleVersion(example, version, work.resolve("operators-basic-" + version + ".jar"));
            int before = upgrades(url).size();
            PluginUpgradeIT.atomicReplace(jar, plugin);
            await("moved to " + version).atMost(WAIT).pollInterval(Duration.ofMillis(100)).until(() -> {
                List<JsonObject> all = upgrades(url);
                return all.size() > before && !all.get(all.size() - 1).getString("outcome").equals("IN_PROGRESS")
                        && all.get(all.size() - 1).getJsonNumber("downtime-ms").longValue() >= 0;
            });
            JsonObject last = upgrades(url).get(upgrades(url).size() - 1);
            assertThat(last.getString("outcome")).as(last.toString()).isEqualTo("UPGRADED");
            long downtime = last.getJsonNumber("downtime-ms").longValue();
            downtimes.add(downtime);
            LOG.info("PluginUpgradeDowntimeIT: upgrade {} to {}: downtime {} ms ({} records released)", i, version, downtime,
                    released.get());
        }
        List<Long> sorted = downtimes.stream().sorted().toList();
        long median = sorted.size() % 2 == 1 ? sorted.get(sorted.size() / 2)
                : (sorted.get(sorted.size() / 2 - 1) + sorted.get(sorted.size() / 2)) / 2;
        LOG.info("PluginUpgradeDowntimeIT: {} in-place upgrades, downtime ms {}: median {}, max {}", downtimes.size(), downtimes,
                median, sorted.get(sorted.size() - 1));

        feeding.set(false);
        feeder.join();
        Files.delete(gate); // the rest of the input at once
        await("finished").atMost(Duration.ofSeconds(300)).pollInterval(Duration.ofMillis(200))
                .until(() -> session.state(url, "upgrade"), s -> List.of("FINISHED", "FAILED", "CANCELED").contains(s));
        assertThat(session.state(url, "upgrade")).isEqualTo("FINISHED");
        assertExactlyOnce(out, truth);
    }


    private List<JsonObject> upgrades(String url) throws IOException, InterruptedException {
        return session.get(url + "/jobs/upgrade").getJsonArray("upgrades").getValuesAs(JsonObject.class);
    }
}
