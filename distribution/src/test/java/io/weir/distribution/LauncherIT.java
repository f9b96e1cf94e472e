package io.weir.distribution;

import jakarta.json.Json;
import jakarta.json.JsonArray;
import jakarta.json.JsonArrayBuilder;
import jakarta.json.JsonObject;
import jakarta.json.JsonReader;
import jakarta.json.JsonValue;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.LongStream;
import java.util.stream.Stream;

import static org.awaitility.Awaitility.await;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/**
 * Runs the assembled distribution ({@code target/weir}, system property {@code weir.home}) the way
 * a user does: {@code bin/weir} as a child process, checking exit codes and output.
 */
class LauncherIT {
    private static final Path HOME = Path.of(System.getProperty("weir.home", "target/weir")).toAbsolutePath();
    private static final Path WEIR = HOME.resolve("bin/weir");
    private static final Path EXAMPLES = HOME.resolve("examples");

    @TempDir
    Path work;

    /** What a finished {@code bin/weir} process left behind. */
    record Run(int exitCode, String out, String err, Duration took) {
        @Override
        public String toString() {
            return "exit " + exitCode + " after " + took.toMillis() + " ms\n--- stdout ---\n" + out + "\n--- stderr ---\n" + err;
        }
    }

    private Run weir(Path workingDir, Duration timeout, String... args) throws IOException, InterruptedException {
        return weir(workingDir, Map.of(), timeout, args);
    }

    private Run weir(Path workingDir, Map<String, String> env, Duration timeout, String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>();
        command.add(WEIR.toString());
        command.addAll(List.of(args));
        Path out = Files.createTempFile(work, "out", ".txt");
        Path err = Files.createTempFile(work, "err", ".txt");
        long start = System.nanoTime();
        ProcessBuilder builder = new ProcessBuilder(command).directory(workingDir.toFile());
        builder.environment().putAll(env);
        Process p = builder
                .redirectOutput(out.toFile()).redirectError(err.toFile()).redirectInput(ProcessBuilder.Redirect.PIPE).start();
        p.getOutputStream().close();
        if (!p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
            p.descendants().forEach(ProcessHandle::destroyForcibly);
            p.destroyForcibly();
            throw new AssertionError("bin/weir " + String.join(" ", args) + " did not end within " + timeout.toSeconds()
                    + " s\n--- stdout ---\n" + Files.readString(out) + "\n--- stderr ---\n" + Files.readString(err));
        }
        return new Run(p.exitValue(), Files.readString(out, StandardCharsets.UTF_8), Files.readString(err, StandardCharsets.UTF_8),
                Duration.ofNanos(System.nanoTime() - start));
    }

    /** Copies the examples into the test's own directory: checkpoints and output must not leak between runs. */
    private Path copyOfExamples() throws IOException {
        Path target = work.resolve("examples");
        try (Stream<Path> files = Files.walk(EXAMPLES)) {
            for (Path source : (Iterable<Path>) files::iterator) {
                Path dest = target.resolve(EXAMPLES.relativize(source).toString());
                if (Files.isDirectory(source)) {
                    Files.createDirectories(dest);
                } else {
                    Files.copy(source, dest, StandardCopyOption.REPLACE_EXISTING);
                }
            }
        }
        return target;
    }

    @Test
    void flightDelaysExampleFinishesWithCheckpointLinesAndSubtaskTable() throws Exception {
        Path examples = copyOfExamples();

        // relative job path from the job's parent directory, like the README's demo command
        Run run = weir(examples.getParent(), Duration.ofMinutes(2), "run", "examples/flight-delays.json");

        assertThat(run.exitCode()).as(run.toString()).isZero();
        assertThat(run.out()).as(run.toString())
                .containsPattern("Completed checkpoint \\d+ for job flight-delays \\(\\d+ bytes, \\d+ ms\\)")
                .contains("vertex", "subtask", "start_delay", "alignment", "sync", "async", "end_to_end", "size")
                .contains("Job flight-delays FINISHED");
    }

    @Test
    void killedRunLeavesNothingOnceTheNextRunStarted() throws Exception {
        Path examples = copyOfExamples();
        Path tmp = Files.createDirectories(work.resolve("tmp"));
        Map<String, String> env = Map.of("JAVA_OPTS", "-Djava.io.tmpdir=" + tmp);
        Path killedOut = work.resolve("killed-out.txt");
        ProcessBuilder builder = new ProcessBuilder(WEIR.toString(), "run", "examples/flight-delays-slow.json")
                .directory(examples.getParent().toFile()).redirectOutput(killedOut.toFile()).redirectErrorStream(true);
        builder.environment().putAll(env);
        Process killed = builder.start();
        Path killedWork = HOME.resolve("work/run-" + killed.pid()); // bin/weir execs java: same pid
        try {
            await("a checkpoint of the slow job").atMost(Duration.ofMinutes(1))
                    .until(() -> !killed.isAlive() || Files.readString(killedOut).contains("Completed checkpoint"));
            assertThat(killed.isAlive()).as(Files.readString(killedOut)).isTrue();
            assertThat(killedWork).as("the running process's work directory").isDirectory();
        } finally {
            killed.destroyForcibly().waitFor();
        }

        Run run = weir(examples.getParent(), env, Duration.ofMinutes(2), "run", "examples/flight-delays.json");

        assertThat(run.exitCode()).as(run.toString()).isZero();
        // Felix's storage and FileInstall's files used to stay in java.io.tmpdir after every kill (120 MB in 30 runs)
        try (Stream<Path> left = Files.list(tmp)) {
            assertThat(left).as("left in java.io.tmpdir").isEmpty();
        }
        assertThat(killedWork).as("the killed run's work directory, deleted by the next run").doesNotExist();
        try (Stream<Path> runs = Files.list(HOME.resolve("work"))) {
            assertThat(runs.map(d -> d.getFileName().toString()).filter(n -> n.startsWith("run-"))
                    .filter(n -> ProcessHandle.of(Long.parseLong(n.substring(4))).isEmpty()))
                    .as("work directories of runs that ended").isEmpty();
        }
    }

    @Test
    void hourlyWindowExampleRunsThroughTheFelixRuntimeWithOneRowPerOriginAndHour() throws Exception {
        Path examples = copyOfExamples();

        Run run = weir(examples.getParent(), Duration.ofMinutes(2), "run", "examples/flight-delays-hourly.json");

        assertThat(run.exitCode()).as(run.toString()).isZero();
        assertThat(run.out()).as(run.toString()).contains("Job flight-delays-hourly FINISHED");
        // ground truth: the data file grouped by origin and UTC hour here, not by the engine
        java.time.format.DateTimeFormatter format = java.time.format.DateTimeFormatter.ofPattern("yyyy/MM/dd HH:mm");
        Map<String, Long> truth = new TreeMap<>();
        try (JsonReader r = Json.createReader(Files.newBufferedReader(examples.resolve("data/flights-20k.json")))) {
            for (JsonValue v : r.readArray()) {
                JsonObject o = v.asJsonObject();
                long ts = java.time.LocalDateTime.parse(o.getString("date"), format).toInstant(java.time.ZoneOffset.UTC).toEpochMilli();
                truth.merge(o.getString("origin") + "@" + (ts - ts % 3_600_000L), 1L, Long::sum);
            }
        }
        Map<String, Long> committed = new TreeMap<>();
        try (Stream<Path> files = Files.list(examples.resolve("out/flight-delays-hourly"))) {
            for (Path f : (Iterable<Path>) files.filter(f -> f.getFileName().toString().startsWith("part-"))::iterator) {
                for (String line : Files.readAllLines(f, StandardCharsets.UTF_8)) {
                    if (!line.isBlank()) {
                        try (JsonReader r = Json.createReader(new StringReader(line))) {
                            JsonObject row = r.readObject();
                            Long previous = committed.put(row.getString("origin") + "@" + row.getJsonNumber("window_start").longValueExact(),
                                    row.getJsonNumber("flights").longValueExact());
                            assertThat(previous).as("a second row for %s", row).isNull();
                        }
                    }
                }
            }
        }
        assertThat(committed).isEqualTo(truth);
    }

    @Test
    void unknownPluginTypeExitsTwoNamingTheFieldWithinFifteenSeconds() throws Exception {
        Path examples = copyOfExamples();
        JsonObject job;
        try (JsonReader r = Json.createReader(new StringReader(Files.readString(examples.resolve("flight-delays.json"))))) {
            job = r.readObject();
        }
        JsonArray ops = job.getJsonArray("operators");
        JsonArrayBuilder broken = Json.createArrayBuilder();
        for (int i = 0; i < ops.size(); i++) {
            broken.add(i == 1 ? Json.createObjectBuilder(ops.getJsonObject(i)).add("type", "no-such-operator").build() : ops.get(i));
        }
        Path bad = examples.resolve("bad-type.json");
        Files.writeString(bad, Json.createObjectBuilder(job).add("operators", broken).build().toString());

        Run run = weir(work, Duration.ofSeconds(30), "run", bad.toString());

        assertThat(run.exitCode()).as(run.toString()).isEqualTo(2);
        assertThat(run.err()).as(run.toString()).contains("error: operators[1].type 'no-such-operator'");
        assertThat(run.out()).as(run.toString()).doesNotContain("Submitted job");
        assertThat(run.took()).as(run.toString()).isLessThan(Duration.ofSeconds(15));
    }

    /**
     * The README's failure example, run exactly as the README writes it (the command is read from
     * README.md), must fail over and restore from a checkpoint, and the committed output must be
     * exactly-once against a ground truth computed here from the data file.
     */
    @Test
    void readmeFailureExampleRestoresFromACheckpointAndCommitsExactlyOnce() throws Exception {
        Path examples = copyOfExamples();
        List<String> args = readmeFailureExampleArguments();

        Run run = weir(examples.getParent(), Duration.ofMinutes(2), args.toArray(String[]::new));

        assertThat(run.exitCode()).as(run.toString()).isZero();
        assertThat(run.out()).as(run.toString())
                .containsPattern("Restarting job flight-delays \\(attempt 1\\) after: .*injected failure in operator 'per-origin'")
                .containsPattern("Restoring job flight-delays from checkpoint \\d+")
                .doesNotContain("did not fire")
                .contains("Job flight-delays FINISHED");
        assertExactlyOnce(examples.resolve("out/flight-delays"), groundTruth(examples.resolve("data/flights-20k.json")));
    }

    /**
     * The same failure example on the RocksDB backend inside Felix: the native library loads from the
     * embedded rocksdbjni, the job restores from an incremental RocksDB checkpoint and commits exactly once.
     */
    @Test
    void readmeFailureExampleOnRocksDbLoadsTheNativeLibraryInFelixAndCommitsExactlyOnce() throws Exception {
        Path examples = copyOfExamples();
        List<String> args = new ArrayList<>(readmeFailureExampleArguments());
        args.addAll(List.of("--set", "state.backend.type=rocksdb", "--set", "state.backend.incremental=true",
                "--set", "state.backend.rocksdb.localdir=" + work.resolve("rocksdb")));

        Run run = weir(examples.getParent(), Duration.ofMinutes(2), args.toArray(String[]::new));

        assertThat(run.exitCode()).as(run.toString()).isZero();
        assertThat(run.out()).as(run.toString())
                .containsPattern("Restoring job flight-delays from checkpoint \\d+")
                .contains("Job flight-delays FINISHED");
        assertExactlyOnce(examples.resolve("out/flight-delays"), groundTruth(examples.resolve("data/flights-20k.json")));
        // the RocksDB backend created its working directories there (so it ran, native library and all) and deleted them
        assertThat(work.resolve("rocksdb")).as(run.toString()).isEmptyDirectory();
    }

    @Test
    void failureInjectionThatCannotFirePrintsAWarningNamingTheOption() throws Exception {
        Path examples = copyOfExamples();

        Run run = weir(examples.getParent(), Duration.ofMinutes(2), "run", "examples/flight-delays.json",
                "--set", "debug.inject-failure.operator=per-origin", "--set", "debug.inject-failure.after-records=1000000");

        assertThat(run.exitCode()).as(run.toString()).isZero();
        assertThat(run.out()).as(run.toString())
                .contains("Warning: job flight-delays: the failure injection did not fire: debug.inject-failure.operator=per-origin")
                .contains("debug.inject-failure.after-records=1000000")
                .doesNotContain("Restoring job");
    }

    @Test
    void engineOptionInTheJobExitsTwoSayingWhereItGoes() throws Exception {
        Path examples = copyOfExamples();

        Run run = weir(examples.getParent(), Duration.ofSeconds(60), "run", "examples/flight-delays.json",
                "--set", "state.async-snapshot.threads=4");

        assertThat(run.exitCode()).as(run.toString()).isEqualTo(2);
        assertThat(run.err()).as(run.toString()).contains("error: --set state.async-snapshot.threads=4: state.async-snapshot.threads"
                + " is an engine option").contains("conf/engine/io.weir.engine.cfg");
        assertThat(run.out()).as(run.toString()).doesNotContain("Submitted job");
    }

    @Test
    void keyedAggregateWhoseKeyDiffersFromItsHashKeysExitsTwoNamingBoth() throws Exception {
        Path examples = copyOfExamples();
        Path job = examples.resolve("flight-delays.json");
        String text = Files.readString(job);
        assertThat(text).contains("\"key\": [\"origin\"]");
        Path bad = examples.resolve("by-destination.json");
        Files.writeString(bad, text.replace("\"key\": [\"origin\"]", "\"key\": [\"destination\"]"));

        Run run = weir(examples.getParent(), Duration.ofSeconds(60), "run", "examples/by-destination.json");

        assertThat(run.exitCode()).as(run.toString()).isEqualTo(2);
        assertThat(run.err()).as(run.toString()).contains("error: operators[1] ('per-origin', keyed-aggregate) groups by"
                + " operators[1].config.key [destination], but its input operators[1].inputs[0].keys hash-partitions by [origin]");
        assertThat(examples.resolve("out")).doesNotExist();
    }

    /** @return the arguments after {@code bin/weir} of the README's failure example */
    private static List<String> readmeFailureExampleArguments() throws IOException {
        Path readme = Path.of(System.getProperty("weir.readme", "../README.md"));
        String line = Files.readAllLines(readme).stream().filter(l -> l.contains("--set debug.inject-failure.operator="))
                .findFirst().orElseThrow(() -> new AssertionError("no failure example in " + readme));
        String command = line.substring(line.indexOf("bin/weir ") + "bin/weir ".length());
        command = command.substring(0, command.indexOf('`'));
        return List.of(command.trim().split("\\s+"));
    }

    /** Per origin: {count, sum of delay} over every flight of the data file, read here, not by the engine. */
    private static Map<String, long[]> groundTruth(Path data) throws IOException {
        Map<String, long[]> truth = new TreeMap<>();
        try (JsonReader r = Json.createReader(Files.newBufferedReader(data))) {
            for (JsonValue v : r.readArray()) {
                JsonObject o = v.asJsonObject();
                long[] t = truth.computeIfAbsent(o.getString("origin"), k -> new long[2]);
                t[0]++;
                t[1] += o.getJsonNumber("delay").longValueExact();
            }
        }
        return truth;
    }

    /** Per origin the counts 1..N committed once each, the row with count N carrying the true mean delay; nothing in progress. */
    private static void assertExactlyOnce(Path out, Map<String, long[]> truth) throws IOException {
        Map<String, List<JsonObject>> byOrigin = new TreeMap<>();
        try (Stream<Path> files = Files.list(out)) {
            for (Path f : (Iterable<Path>) files.sorted()::iterator) {
                String name = f.getFileName().toString();
                assertThat(name).as("file in %s", out).doesNotEndWith(".inprogress");
                if (!name.startsWith("part-")) {
                    continue;
                }
                for (String line : Files.readAllLines(f, StandardCharsets.UTF_8)) {
                    if (!line.isBlank()) {
                        try (JsonReader r = Json.createReader(new StringReader(line))) {
                            JsonObject row = r.readObject();
                            byOrigin.computeIfAbsent(row.getString("origin"), k -> new ArrayList<>()).add(row);
                        }
                    }
                }
            }
        }
        assertThat(byOrigin.keySet()).as("origins committed").isEqualTo(truth.keySet());
        for (Map.Entry<String, long[]> e : truth.entrySet()) {
            long n = e.getValue()[0];
            List<JsonObject> rows = byOrigin.get(e.getKey());
            assertThat(rows.stream().map(r -> r.getJsonNumber("flights").longValueExact()).sorted().toList())
                    .as("counts committed for origin %s (1..%d, each once)", e.getKey(), n)
                    .isEqualTo(LongStream.rangeClosed(1, n).boxed().toList());
            JsonObject last = rows.stream().filter(r -> r.getJsonNumber("flights").longValueExact() == n).findFirst().orElseThrow();
            assertThat(last.getJsonNumber("avg_delay").doubleValue()).as("final avg_delay of %s", e.getKey())
                    .isCloseTo((double) e.getValue()[1] / n, within(1e-9));
        }
    }

    @Test
    void missingJobFileExitsTwoWithoutStartingTheEngine() throws Exception {
        Run run = weir(work, Duration.ofSeconds(30), "run", "no-such-job.json");

        assertThat(run.exitCode()).as(run.toString()).isEqualTo(2);
        assertThat(run.err()).as(run.toString()).contains("error: job file no-such-job.json does not exist");
    }

    @Test
    void pluginsListsTheBundledSourceOperatorAndSinkTypes() throws Exception {
        Run run = weir(work, Duration.ofSeconds(60), "plugins");

        assertThat(run.exitCode()).as(run.toString()).isZero();
        assertThat(run.out()).as(run.toString()).contains("TYPE").contains("source").contains("operator").contains("sink");
    }

    @Test
    void versionNeedsNoFramework() throws Exception {
        Run run = weir(work, Duration.ofSeconds(30), "--version");

        assertThat(run.exitCode()).as(run.toString()).isZero();
        assertThat(run.out()).as(run.toString()).contains("weir 0.1.0").contains("Apache Felix 7.0.5");
    }
}
