package io.weir.distribution;

import io.weir.distribution.WeirProcesses.Run;
import io.weir.distribution.WeirProcesses.Truth;
import jakarta.json.Json;
import jakarta.json.JsonArray;
import jakarta.json.JsonObject;
import jakarta.json.JsonReader;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.List;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import static io.weir.distribution.WeirProcesses.assertCommittedPrefix;
import static io.weir.distribution.WeirProcesses.assertExactlyOnce;
import static io.weir.distribution.WeirProcesses.freePort;
import static io.weir.distribution.WeirProcesses.rows;
import static io.weir.distribution.WeirProcesses.writeFlightJob;
import static io.weir.distribution.WeirProcesses.writeFlights;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Upgrading and removing a plugin under a running job on the real node (issue 8, "Must show"): a job over 20,000
 * flights runs on the shipped {@code operators-basic} (1.0: bundle version 0.1.0.x); its jar in {@code plugins/} is
 * replaced (atomic move) by {@code examples/plugins/}' 1.1.0 build, whose {@code keyed-aggregate} adds an
 * {@code avg_delay_stddev} column; the node moves the job (stop-with-savepoint, re-bind, restore) and reports the move
 * with its downtime. The jar is then removed: the job goes SUSPENDED naming the missing plugin; put back, the job
 * resumes on its own and runs to its end. The committed output is compared with a ground truth computed here from
 * the input: every update of every origin exactly once; rows written by 1.1 carry the stddev column, rows by 1.0 not.
 * Between the upgrade and the removal, a 1.2 that throws while restoring ({@link BrokenPluginJar}) is installed beside
 * 1.1: the job is moved to it and rolled back to 1.1 from the same savepoint, the message naming both versions. Then
 * the file sink's jar is replaced in place by the same bundle rebuilt at {@code Bundle-Version} 1.1.0: the job moves
 * again, and what its old version pre-committed is committed once (the output so far a prefix of every origin, once).
 *
 * <p>Mid-stream by a gate, not by pacing: the file source's {@code release-file} holds the count of records it may
 * read; the test raises it by {@value #STEP} just before each step (so records flow while the jar changes) and waits
 * for those rows to be committed after it. So every step happens while the job is RUNNING, whatever the machine's
 * speed (with an 8 ms pace instead, at load 15-20 the input ran out before the removal), and each version has rows of
 * its own; the gate is deleted (everything released) only once the last step is done.
 *
 * <p>The node runs from a private copy of the distribution (its {@code plugins/} is changed; the shared one is not).
 */
class PluginUpgradeIT {
    private static final Logger LOG = LoggerFactory.getLogger(PluginUpgradeIT.class);
    private static final Path HOME = Path.of(System.getProperty("weir.home", "target/weir")).toAbsolutePath();
    private static final long SEED = 8_2026_12_01L;
    private static final int RECORDS = 20_000;
    /** Records the source's gate releases per step: 3,000, 6,000, ... 15,000 before the last step, then all 20,000. */
    private static final int STEP = 3_000;
    static final String SHIPPED_JAR = "weir-operators-basic-0.1.0-SNAPSHOT.jar";
    private static final String SHIPPED_SINK_JAR = "weir-sink-file-0.1.0-SNAPSHOT.jar";
    private static final Duration WAIT = Duration.ofSeconds(90);

    @TempDir
    Path work;

    private NodeSession session;
    private Path home;

    @BeforeEach
    void privateDistribution() throws IOException {
        home = privateDistribution(work);
        session = new NodeSession(work, home.resolve("bin/weir"));
    }

    /**
     * @return {@code <work>/weir}: a distribution home whose {@code bin/weir} and {@code plugins/} are copies of the
     *         built one's (so a test may change its plugins) and whose other directories link to the built one's
     */
    static Path privateDistribution(Path work) throws IOException {
        Path home = work.resolve("weir");
        Files.createDirectories(home.resolve("bin"));
        Files.copy(HOME.resolve("bin/weir"), home.resolve("bin/weir"), StandardCopyOption.COPY_ATTRIBUTES);
        for (String shared : List.of("lib", "bundles", "conf", "examples")) {
            Files.createSymbolicLink(home.resolve(shared), HOME.resolve(shared));
        }
        Files.createDirectories(home.resolve("plugins"));
        try (Stream<Path> jars = Files.list(HOME.resolve("plugins"))) {
            for (Path jar : jars.toList()) {
                Files.copy(jar, home.resolve("plugins").resolve(jar.getFileName()));
            }
        }
        return home;
    }

    @AfterEach
    void stopEverything() throws InterruptedException {
        session.stopAll();
    }

    @Test
    void aJobMovesToANewPluginVersionIsSuspendedWhileItIsRemovedAndCommitsExactlyOnce() throws Exception {
        int port = freePort();
        String url = "http://127.0.0.1:" + port;
        Path data = work.resolve("data");
        String[] node = {"--node", url, "--data-dir", data.toString()};
        Process n = session.startNode(port, data, "node");
        session.awaitListening(n, port, "node");

        Path input = work.resolve("flights.jsonl");
        Map<String, Truth> truth = writeFlights(input, RECORDS, SEED);
        Path out = work.resolve("out");
        Path gate = work.resolve("release");
        WeirProcesses.release(gate, STEP);
        Path job = withReleaseFile(writeFlightJob("upgrade.json", "upgrade", input, work.resolve("cp"), out, 0, 2, Map.of()), gate);
        Run submit = session.weir(with(node, "submit", job.toString()));
        assertThat(submit.exitCode()).as(submit.toString()).isZero();
        awaitCommitted(out, STEP);
        assertThat(aggregateVersion(url)).startsWith("0.1.0");
        step("running on the shipped operators-basic " + aggregateVersion(url) + "; " + rows(out).size() + " rows committed");

        // the 1.1 jar replaces the shipped one: FileInstall updates the bundle in place
        Path v11 = exampleJar();
        Path plugin = home.resolve("plugins").resolve(SHIPPED_JAR);
        WeirProcesses.release(gate, 2 * STEP - STEP / 2); // records in flight while the jar changes, if the machine is slow enough
        atomicReplace(v11, plugin);
        await("moved to 1.1.0").atMost(WAIT).pollInterval(Duration.ofMillis(100))
                .until(() -> "1.1.0".equals(aggregateVersion(url)) && "RUNNING".equals(session.state(url, "upgrade")));
        await("the move passed its probation").atMost(WAIT).pollInterval(Duration.ofMillis(100))
                .until(() -> lastUpgrade(url).getString("outcome"), o -> !o.equals("IN_PROGRESS"));
        JsonObject upgrade = lastUpgrade(url);
        assertThat(upgrade.getString("outcome")).as(upgrade.toString()).isEqualTo("UPGRADED");
        assertThat(upgrade.getJsonArray("to").getString(1)).isEqualTo("per-origin: keyed-aggregate io.weir.plugin.basic 1.1.0");
        // the new run's first row ends the downtime: if the old run had read all it was released before its savepoint,
        // that row comes from this release, and the downtime includes the hold
        WeirProcesses.release(gate, 2 * STEP);
        await("downtime measured").atMost(WAIT).pollInterval(Duration.ofMillis(100))
                .until(() -> lastUpgrade(url).getJsonNumber("downtime-ms").longValue() >= 0);
        long downtime = lastUpgrade(url).getJsonNumber("downtime-ms").longValue();
        step("moved to 1.1.0 with a downtime of " + downtime + " ms (" + upgrades(url).size() + " move(s))");
        Run info = session.weir(with(node, "info", "upgrade"));
        assertThat(info.out()).as(info.toString()).contains("Plugin upgrades:", "UPGRADED: ", "io.weir.plugin.basic 1.1.0");
        awaitCommitted(out, 2 * STEP);

        // a 1.2 beside it that cannot restore the savepoint: the job is moved to it and rolled back to 1.1
        Path apiJar;
        try (Stream<Path> jars = Files.list(HOME.resolve("bundles"))) {
            apiJar = jars.filter(p -> p.getFileName().toString().startsWith("weir-api-")).findFirst().orElseThrow();
        }
        Path broken = work.resolve("broken-1.2.jar");
        BrokenPluginJar.write(broken, work, apiJar);
        WeirProcesses.release(gate, 3 * STEP);
        atomicReplace(broken, home.resolve("plugins").resolve("operators-basic-1.2-broken.jar"));
        await("moved to 1.2 and rolled back").atMost(WAIT).pollInterval(Duration.ofMillis(100))
                .until(() -> upgrades(url).size() >= 2 && !lastUpgrade(url).getString("outcome").equals("IN_PROGRESS"));
        JsonObject rollback = lastUpgrade(url);
        assertThat(rollback.getString("outcome")).as(rollback.toString()).isEqualTo("ROLLED_BACK");
        assertThat(rollback.getString("message")).contains("'keyed-aggregate' io.weir.plugin.basic 1.2.0 failed on restore",
                BrokenPluginJar.FAILURE, "rolled back to 'keyed-aggregate' io.weir.plugin.basic 1.1.0");
        await("running on 1.1 again").atMost(WAIT).pollInterval(Duration.ofMillis(100))
                .until(() -> "1.1.0".equals(aggregateVersion(url)) && "RUNNING".equals(session.state(url, "upgrade")));
        // the rolled-back run's tasks all run once it completed a checkpoint (a stop-with-savepoint while they are
        // still being deployed is declined, and the node then falls back to the latest checkpoint)
        session.awaitCheckpoints(url, "upgrade", 0);
        awaitCommitted(out, 3 * STEP);
        step("1.2 failed on restore and was rolled back to 1.1: " + rollback.getString("message"));

        // the file sink's jar replaced in place by the same bundle at a higher version: the job moves again; the
        // transactions the old version pre-committed are committed exactly once (TwoPhaseCommittingSink's contract)
        Path sinkJar = home.resolve("plugins").resolve(SHIPPED_SINK_JAR);
        Path sink11 = withBundleVersion(sinkJar, "1.1.0", work.resolve("sink-file-1.1.0.jar"));
        int movesBefore = upgrades(url).size();
        WeirProcesses.release(gate, 4 * STEP);
        atomicReplace(sink11, sinkJar);
        await("sink moved to 1.1.0").atMost(WAIT).pollInterval(Duration.ofMillis(100))
                .until(() -> upgrades(url).size() > movesBefore && !lastUpgrade(url).getString("outcome").equals("IN_PROGRESS"));
        JsonObject sinkMove = lastUpgrade(url);
        assertThat(sinkMove.getString("outcome")).as(sinkMove.toString()).isEqualTo("UPGRADED");
        assertThat(sinkMove.getJsonArray("to").getString(2)).isEqualTo("out: file-2pc io.weir.plugin.filesink 1.1.0");
        assertThat(pluginVersion(url, "out")).isEqualTo("1.1.0");
        assertThat(aggregateVersion(url)).isEqualTo("1.1.0");
        awaitCommitted(out, 4 * STEP);
        assertCommittedPrefix(out, truth);
        step("file sink moved to 1.1.0; " + rows(out).size() + " rows committed, a prefix of every origin once");

        // removed: the job goes SUSPENDED naming the plugin; put back, it resumes on its own (1.2 stays excluded)
        Path removed = work.resolve("removed.jar");
        WeirProcesses.release(gate, 5 * STEP);
        Files.move(plugin, removed, StandardCopyOption.ATOMIC_MOVE);
        await("suspended").atMost(WAIT).pollInterval(Duration.ofMillis(100))
                .until(() -> session.state(url, "upgrade").equals("SUSPENDED"));
        String cause = session.get(url + "/jobs/upgrade").getString("failure-cause");
        assertThat(cause).contains("waiting for plugin keyed-aggregate (io.weir.plugin.basic 1.1.0)", "savepoint");
        int committedWhileAway = rows(out).size();
        step("plugin removed, job SUSPENDED: " + cause);
        Files.move(removed, plugin, StandardCopyOption.ATOMIC_MOVE);
        await("resumed").atMost(WAIT).pollInterval(Duration.ofMillis(100))
                .until(() -> session.state(url, "upgrade").equals("RUNNING"));
        step("plugin back, job RUNNING; " + committedWhileAway + " rows were committed when it was suspended");
        awaitCommitted(out, 5 * STEP);
        Files.delete(gate);

        await("finished").atMost(Duration.ofSeconds(180)).pollInterval(Duration.ofMillis(200))
                .until(() -> session.state(url, "upgrade"), s -> List.of("FINISHED", "FAILED", "CANCELED").contains(s));
        assertThat(session.state(url, "upgrade")).isEqualTo("FINISHED");
        assertExactlyOnce(out, truth);
        assertStddevFromTheSwitchOn(out);
        LOG.info("PluginUpgradeIT: {} rows exactly once; moves: {}", rows(out).size(), upgrades(url));
    }

    /** Per origin, sorted by count: rows without {@code avg_delay_stddev} (1.0), then only rows with it (1.1), both present. */
    static void assertStddevFromTheSwitchOn(Path out) throws IOException {
        Map<String, List<JsonObject>> byOrigin = rows(out).stream()
                .collect(Collectors.groupingBy(r -> r.getString("origin"), TreeMap::new, Collectors.toList()));
        long withStddev = 0;
        for (Map.Entry<String, List<JsonObject>> e : byOrigin.entrySet()) {
            List<Boolean> has = e.getValue().stream().sorted((a, b) -> Long.compare(a.getJsonNumber("flights").longValue(),
                    b.getJsonNumber("flights").longValue())).map(r -> r.containsKey("avg_delay_stddev")).toList();
            int first = has.indexOf(true);
            assertThat(first).as("origin %s has rows from 1.1", e.getKey()).isPositive();
            assertThat(has.subList(first, has.size())).as("origin %s: every row after the switch is 1.1's", e.getKey())
                    .doesNotContain(false);
            withStddev += has.size() - first;
        }
        assertThat(withStddev).isPositive();
    }

    /** Waits until at least {@code rows} rows are committed (one per record: the job has read that far and is held). */
    private static void awaitCommitted(Path out, int rows) {
        await(rows + " rows committed").atMost(WAIT).pollInterval(Duration.ofMillis(100)).until(() -> rows(out).size() >= rows);
    }

    /** Adds {@code release-file: gate} to the config of the job's source (its first operator); returns the job file. */
    static Path withReleaseFile(Path jobFile, Path gate) throws IOException {
        JsonObject job;
        try (JsonReader reader = Json.createReader(Files.newBufferedReader(jobFile))) {
            job = reader.readObject();
        }
        JsonArray operators = job.getJsonArray("operators");
        JsonObject source = operators.getJsonObject(0);
        JsonObject gated = Json.createObjectBuilder(source)
                .add("config", Json.createObjectBuilder(source.getJsonObject("config")).add("release-file", gate.toString())).build();
        JsonObject rewritten = Json.createObjectBuilder(job)
                .add("operators", Json.createArrayBuilder(operators).set(0, gated)).build();
        Files.writeString(jobFile, rewritten.toString());
        return jobFile;
    }

    static Path exampleJar() throws IOException {
        try (Stream<Path> jars = Files.list(HOME.resolve("examples/plugins"))) {
            return jars.filter(p -> p.getFileName().toString().startsWith("weir-example-operators-basic-1.1")).findFirst()
                    .orElseThrow(() -> new AssertionError("no operators-basic 1.1 in " + HOME.resolve("examples/plugins")));
        }
    }

    /** Copies {@code jar} next to {@code target} and moves it over {@code target} in one step, as a deploy tool would. */
    static void atomicReplace(Path jar, Path target) throws IOException {
        Path staging = target.resolveSibling("." + target.getFileName() + ".staging");
        Files.copy(jar, staging, StandardCopyOption.REPLACE_EXISTING);
        Files.move(staging, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    }

    private String aggregateVersion(String url) throws IOException, InterruptedException {
        return pluginVersion(url, "per-origin");
    }

    /** @return the plugin version the job's operator {@code operator} runs on (GET /jobs/upgrade), "" if not listed */
    private String pluginVersion(String url, String operator) throws IOException, InterruptedException {
        JsonObject details = session.get(url + "/jobs/upgrade");
        return details.getJsonArray("plugin-versions").getValuesAs(JsonObject.class).stream()
                .filter(p -> p.getString("operator").equals(operator)).map(p -> p.getString("version")).findFirst().orElse("");
    }

    /**
     * Writes {@code target}: {@code jar} with its manifest's {@code Bundle-Version} set to {@code version}, every other
     * entry as is (the same bundle rebuilt at a higher version, as a plugin's next release keeps its symbolic name).
     */
    static Path withBundleVersion(Path jar, String version, Path target) throws IOException {
        try (JarFile in = new JarFile(jar.toFile())) {
            Manifest manifest = new Manifest(in.getManifest());
            manifest.getMainAttributes().putValue("Bundle-Version", version);
            try (JarOutputStream outJar = new JarOutputStream(Files.newOutputStream(target), manifest)) {
                for (JarEntry entry : java.util.Collections.list(in.entries())) {
                    if (entry.getName().equalsIgnoreCase(JarFile.MANIFEST_NAME) || entry.getName().equalsIgnoreCase("META-INF/")) {
                        continue;
                    }
                    outJar.putNextEntry(new JarEntry(entry.getName()));
                    try (var bytes = in.getInputStream(entry)) {
                        bytes.transferTo(outJar);
                    }
                    outJar.closeEntry();
                }
            }
        }
        return target;
    }

    private List<JsonObject> upgrades(String url) throws IOException, InterruptedException {
        return session.get(url + "/jobs/upgrade").getJsonArray("upgrades").getValuesAs(JsonObject.class);
    }

    private JsonObject lastUpgrade(String url) throws IOException, InterruptedException {
        List<JsonObject> all = upgrades(url);
        assertThat(all).isNotEmpty();
        return all.get(all.size() - 1);
    }

    private final long startNanos = System.nanoTime();

    private void step(String what) {
        LOG.info("PluginUpgradeIT at {} s: {}", (System.nanoTime() - startNanos) / 1_000_000_000.0, what);
    }

    private static String[] with(String[] node, String... args) {
        return Stream.concat(Stream.of(args), Stream.of(node)).toArray(String[]::new);
    }
}
