package io.weir.distribution;

import jakarta.json.Json;
import jakarta.json.JsonNumber;
import jakarta.json.JsonObject;
import jakarta.json.JsonReader;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.BufferedWriter;
import java.io.IOException;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.LongStream;
import java.util.stream.Stream;

import static io.weir.distribution.WeirProcesses.committedFiles;
import static io.weir.distribution.WeirProcesses.describe;
import static io.weir.distribution.WeirProcesses.killWithDescendants;
import static io.weir.distribution.WeirProcesses.rows;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.offset;
import static org.awaitility.Awaitility.await;

/**
 * Kills a running {@code bin/weir run} with SIGKILL after its first completed checkpoint and runs the
 * same job again: README "a job whose last run did not finish (killed, cancelled, failed) resumes from
 * its latest checkpoint", and the two-phase-commit sink's output over both runs is exactly-once
 * (PROTOCOL.md: restore from the newest complete {@code _metadata}; the file-2pc sink commits the
 * restored checkpoint's pending transaction and drops in-progress files).
 *
 * <p>The input is generated with a seeded {@link Random} so the expected per-origin count and delay
 * sum are known. The aggregate sleeps {@value #SLEEP_MS_PER_RECORD} ms per record so a run of
 * {@value #RECORDS} records takes ~7 s on this machine, long enough to kill it mid-run (without the
 * throttle 200,000 records finish in ~1 s, too fast to kill reliably).
 */
class ProcessKillResumeIT {
    private static final Logger LOG = LoggerFactory.getLogger(ProcessKillResumeIT.class);
    private static final Path HOME = Path.of(System.getProperty("weir.home", "target/weir")).toAbsolutePath();
    private static final Path WEIR = HOME.resolve("bin/weir");

    private static final String JOB = "kill-resume";
    /** Input records (flights). */
    static final int RECORDS = 20_000;
    /** Pause of the keyed aggregate per record, ms (config {@code sleep-ms-per-record}). */
    private static final int SLEEP_MS_PER_RECORD = 1;
    private static final int ORIGINS = 50;
    private static final long SEED = 20_240_601L;
    private static final Pattern CHECKPOINT_DIR = Pattern.compile("chk-(\\d+)");

    @TempDir
    Path work;

    /** Expected aggregate of one origin: record count and sum of {@code delay} (minutes). */
    record Truth(long count, long delaySum) {
        Truth plus(long delay) {
            return new Truth(count + 1, delaySum + delay);
        }
    }

    /** What a finished {@code bin/weir} process left behind. */
    record Run(int exitCode, String out, String err) {
        @Override
        public String toString() {
            return "exit " + exitCode + "\n--- stdout ---\n" + out + "\n--- stderr ---\n" + err;
        }
    }

    @Test
    void jobKilledAfterACheckpointResumesFromItsLatestCheckpointAndCommitsEveryUpdateExactlyOnce() throws Exception {
        Path input = work.resolve("flights.jsonl");
        Map<String, Truth> truth = writeFlights(input);
        Path checkpoints = work.resolve("checkpoints");
        Path out = work.resolve("out");
        Path job = writeJob(input, checkpoints, out);

        // first run: SIGKILL once a checkpoint is complete and its transaction committed
        Path out1 = work.resolve("run1-stdout.txt");
        Path err1 = work.resolve("run1-stderr.txt");
        Process first = start(job, out1, err1);
        try {
            await("a completed checkpoint and a committed part file").atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(20))
                    .until(() -> !first.isAlive() || (latestCompletedCheckpoint(checkpoints.resolve(JOB)).isPresent() && !committedFiles(out).isEmpty()));
            assertThat(first.isAlive()).as("first run ended before it could be killed: %s", describe(first, out1, err1)).isTrue();
        } finally {
            killWithDescendants(first);
        }
        String firstOut = Files.readString(out1, StandardCharsets.UTF_8);
        assertThat(firstOut).as("first run must not have finished before the kill").doesNotContain("Job " + JOB + " FINISHED");
        long committedBeforeRestart = rows(out).size();
        assertThat(committedBeforeRestart).as("rows committed by the killed run").isBetween(1L, RECORDS - 1L);
        long latest = latestCompletedCheckpoint(checkpoints.resolve(JOB)).orElseThrow();
        LOG.info("Killed first run of {} with checkpoint {} complete and {} of {} rows committed", JOB, latest, committedBeforeRestart, RECORDS);

        // second run: resumes from the latest completed checkpoint and finishes
        Run second = run(job, work.resolve("run2-stdout.txt"), work.resolve("run2-stderr.txt"), Duration.ofSeconds(60));

        assertThat(second.exitCode()).as(second.toString()).isZero();
        assertThat(second.out()).as(second.toString())
                .contains("Restoring job " + JOB + " from checkpoint " + latest)
                .containsPattern("Job " + JOB + " FINISHED after \\d+ ms");
        LOG.info("Second run of {} exited 0; committed rows now {}", JOB, rows(out).size());
        assertExactlyOnce(out, truth);
    }

    @Test
    void killsAtRandomMomentsAndRightAfterTheFinalCheckpointCompletedStayExactlyOnce() throws Exception {
        Path input = work.resolve("flights.jsonl");
        int records = 3 * RECORDS; // each run's first checkpoint carries ~7000 rows under backpressure
        Map<String, Truth> truth = writeFlights(input, records);
        Path checkpoints = work.resolve("checkpoints");
        Path out = work.resolve("out");
        Path job = writeJob(input, checkpoints, out);
        Random random = new Random(SEED);

        // kill -9 at random moments once a run checkpoints, each run resuming what the one before left
        long committed = 0;
        for (int i = 1; i <= 3; i++) {
            long afterMs = random.nextInt(400);
            Path stdout = work.resolve("kill" + i + "-stdout.txt");
            Path stderr = work.resolve("kill" + i + "-stderr.txt");
            Process p = start(job, stdout, stderr);
            try {
                await("a completed checkpoint of run " + i).atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(20))
                        .until(() -> !p.isAlive() || Files.readString(stdout, StandardCharsets.UTF_8).contains("Completed checkpoint"));
                boolean ended = p.waitFor(afterMs, TimeUnit.MILLISECONDS);
                assertThat(ended).as("run %d ended before its kill: %s", i, describe(p, stdout, stderr)).isFalse();
            } finally {
                killWithDescendants(p);
            }
            long now = rows(out).size();
            LOG.info("Killed run {} of {} {} ms after its first checkpoint; {} rows committed", i, JOB, afterMs, now);
            assertThat(now).as("run %d resumed and committed more", i).isGreaterThanOrEqualTo(committed);
            committed = now;
        }
        assertThat(committed).as("the killed runs committed part of the output").isBetween(1L, records - 1L);

        // kill -9 in the window between the final checkpoint's _metadata and the sinks' commits, held open
        Path stdout = work.resolve("final-stdout.txt");
        Path stderr = work.resolve("final-stderr.txt");
        Process p = start(job, stdout, stderr, "--set", "debug.inject-delay.final-checkpoint-notify=10 min");
        try {
            await("the final checkpoint completed, its notification held").atMost(Duration.ofSeconds(90))
                    .pollInterval(Duration.ofMillis(20))
                    .until(() -> !p.isAlive() || Files.readString(stderr, StandardCharsets.UTF_8).contains("Notifying the tasks of final checkpoint"));
            assertThat(p.isAlive()).as("final run ended before its kill: %s", describe(p, stdout, stderr)).isTrue();
        } finally {
            killWithDescendants(p);
        }
        long finalCheckpoint = latestCompletedCheckpoint(checkpoints.resolve(JOB)).orElseThrow();
        assertThat(Files.readString(stdout, StandardCharsets.UTF_8)).doesNotContain("FINISHED");

        Run last = run(job, work.resolve("last-stdout.txt"), work.resolve("last-stderr.txt"), Duration.ofSeconds(60));

        assertThat(last.exitCode()).as(last.toString()).isZero();
        assertThat(last.out()).as("resumes from the final checkpoint and commits what is pending: " + last)
                .contains("Restoring job " + JOB + " from checkpoint " + finalCheckpoint)
                .containsPattern("Job " + JOB + " FINISHED after \\d+ ms");
        assertExactlyOnce(out, truth);
    }

    @Test
    void runWhoseCheckpointsWereDeletedIsRefusedInsteadOfWritingCommittedOutputAgain() throws Exception {
        Path input = work.resolve("flights.jsonl");
        writeFlights(input);
        Path checkpoints = work.resolve("checkpoints");
        Path out = work.resolve("out");
        Path job = writeJob(input, checkpoints, out);
        Path out1 = work.resolve("run1-stdout.txt");
        Path err1 = work.resolve("run1-stderr.txt");
        Process first = start(job, out1, err1);
        try {
            await("a committed part file").atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(20))
                    .until(() -> !first.isAlive() || !committedFiles(out).isEmpty());
            assertThat(first.isAlive()).as("first run ended before it could be killed: %s", describe(first, out1, err1)).isTrue();
        } finally {
            killWithDescendants(first);
        }
        List<String> committed = rows(out).stream().map(Object::toString).sorted().toList();
        try (var all = Files.walk(checkpoints)) {
            for (Path p : all.sorted(java.util.Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        }

        Run again = run(job, work.resolve("run2-stdout.txt"), work.resolve("run2-stderr.txt"), Duration.ofSeconds(60));

        assertThat(again.exitCode()).as(again.toString()).isEqualTo(1);
        assertThat(again.out() + again.err()).as(again.toString())
                .contains("no checkpoint to resume from").contains(out.toString()).contains("is not restarted: a restart cannot help");
        assertThat(rows(out).stream().map(Object::toString).sorted().toList()).as("nothing was written again").isEqualTo(committed);
    }

    /** Every update per origin committed once: counts 1..N each once, the last average = sum / N; nothing in progress. */
    static void assertExactlyOnce(Path out, Map<String, Truth> truth) throws IOException {
        try (Stream<Path> files = Files.list(out)) {
            assertThat(files.map(p -> p.getFileName().toString()).filter(n -> n.endsWith(".inprogress")))
                    .as("in-progress files left in %s", out).isEmpty();
        }
        Map<String, List<JsonObject>> byOrigin = rows(out).stream()
                .collect(Collectors.groupingBy(r -> r.getString("origin"), TreeMap::new, Collectors.toList()));
        assertThat(byOrigin.keySet()).as("origins in the committed output").isEqualTo(truth.keySet());
        for (Map.Entry<String, Truth> e : truth.entrySet()) {
            String origin = e.getKey();
            Truth t = e.getValue();
            List<Long> counts = byOrigin.get(origin).stream().map(r -> r.getJsonNumber("flights").longValueExact()).sorted().toList();
            assertThat(counts).as("'flights' values committed for origin %s (expected 1..%d, each once)", origin, t.count())
                    .containsExactlyElementsOf(LongStream.rangeClosed(1, t.count()).boxed().toList());
            JsonObject last = byOrigin.get(origin).stream().filter(r -> r.getJsonNumber("flights").longValueExact() == t.count())
                    .findFirst().orElseThrow();
            JsonNumber avg = last.getJsonNumber("avg_delay");
            assertThat(avg.doubleValue()).as("avg_delay of origin %s after all %d flights: %s", origin, t.count(), last)
                    .isCloseTo((double) t.delaySum() / t.count(), offset(1e-9));
        }
    }

    /** Writes {@value #RECORDS} JSON-lines flights from {@link #SEED}; returns per-origin count and delay sum. */
    static Map<String, Truth> writeFlights(Path file) throws IOException {
        return writeFlights(file, RECORDS);
    }

    /** Writes {@code records} JSON-lines flights from {@link #SEED}; returns per-origin count and delay sum. */
    static Map<String, Truth> writeFlights(Path file, int records) throws IOException {
        Random random = new Random(SEED);
        List<String> airports = new ArrayList<>();
        while (airports.size() < ORIGINS) {
            String code = "" + (char) ('A' + random.nextInt(26)) + (char) ('A' + random.nextInt(26)) + (char) ('A' + random.nextInt(26));
            if (!airports.contains(code)) {
                airports.add(code);
            }
        }
        Map<String, Truth> truth = new TreeMap<>();
        try (BufferedWriter w = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
            for (int i = 0; i < records; i++) {
                String origin = airports.get(random.nextInt(ORIGINS));
                String destination = airports.get(random.nextInt(ORIGINS));
                long delay = -30 + random.nextInt(331);
                long distance = 50 + random.nextInt(4950);
                String date = String.format("2001/%02d/%02d %02d:%02d", 1 + (int) ((long) i * 12 / records), 1 + random.nextInt(28),
                        random.nextInt(24), random.nextInt(60));
                w.write(Json.createObjectBuilder().add("date", date).add("delay", delay).add("distance", distance)
                        .add("origin", origin).add("destination", destination).build().toString());
                w.write('\n');
                truth.merge(origin, new Truth(1, delay), (a, b) -> a.plus(b.delaySum()));
            }
        }
        return truth;
    }

    /** The job of examples/flight-delays.json on the generated input, throttled, checkpointing every 100 ms. */
    static Path writeJob(Path input, Path checkpoints, Path out) throws IOException {
        JsonObject job = Json.createObjectBuilder()
                .add("name", JOB)
                .add("config", Json.createObjectBuilder()
                        .add("execution.checkpointing.interval", "100 ms")
                        .add("execution.checkpointing.dir", checkpoints.toString()))
                .add("operators", Json.createArrayBuilder()
                        .add(Json.createObjectBuilder().add("id", "flights").add("type", "file").add("parallelism", 1)
                                .add("config", Json.createObjectBuilder().add("path", input.toString()).add("format", "lines")
                                        .add("schema", Json.createObjectBuilder().add("date", "string").add("delay", "long")
                                                .add("distance", "long").add("origin", "string").add("destination", "string"))))
                        .add(Json.createObjectBuilder().add("id", "per-origin").add("type", "keyed-aggregate").add("parallelism", 2)
                                .add("inputs", Json.createArrayBuilder().add(Json.createObjectBuilder().add("from", "flights")
                                        .add("partitioning", "hash").add("keys", Json.createArrayBuilder().add("origin"))))
                                .add("config", Json.createObjectBuilder()
                                        .add("key", Json.createArrayBuilder().add("origin"))
                                        .add("aggregates", Json.createArrayBuilder()
                                                .add(Json.createObjectBuilder().add("fn", "count").add("as", "flights"))
                                                .add(Json.createObjectBuilder().add("fn", "avg").add("field", "delay").add("as", "avg_delay")))
                                        .add("sleep-ms-per-record", SLEEP_MS_PER_RECORD)))
                        .add(Json.createObjectBuilder().add("id", "out").add("type", "file-2pc").add("parallelism", 2)
                                .add("inputs", Json.createArrayBuilder().add("per-origin"))
                                .add("config", Json.createObjectBuilder().add("path", out.toString()))))
                .build();
        Path file = input.resolveSibling(JOB + ".json");
        Files.writeString(file, job.toString(), StandardCharsets.UTF_8);
        return file;
    }

    /** Highest {@code chk-<id>} under {@code jobDir} whose {@code _metadata} exists (written last, atomically). */
    static OptionalLong latestCompletedCheckpoint(Path jobDir) throws IOException {
        if (!Files.isDirectory(jobDir)) {
            return OptionalLong.empty();
        }
        try (Stream<Path> dirs = Files.list(jobDir)) {
            return dirs.filter(d -> Files.exists(d.resolve("_metadata")))
                    .map(d -> CHECKPOINT_DIR.matcher(d.getFileName().toString()))
                    .filter(Matcher::matches)
                    .mapToLong(m -> Long.parseLong(m.group(1)))
                    .max();
        }
    }



    private Process start(Path job, Path stdout, Path stderr, String... options) throws IOException {
        List<String> command = new ArrayList<>(List.of(WEIR.toString(), "run", job.toString()));
        command.addAll(List.of(options));
        Process p = new ProcessBuilder(command).directory(work.toFile())
                .redirectOutput(stdout.toFile()).redirectError(stderr.toFile()).redirectInput(ProcessBuilder.Redirect.PIPE).start();
        p.getOutputStream().close();
        return p;
    }

    private Run run(Path job, Path stdout, Path stderr, Duration timeout) throws IOException, InterruptedException {
        Process p = start(job, stdout, stderr);
        if (!p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
            killWithDescendants(p);
            throw new AssertionError("bin/weir run " + job + " did not end within " + timeout.toSeconds() + " s: " + describe(p, stdout, stderr));
        }
        return new Run(p.exitValue(), Files.readString(stdout, StandardCharsets.UTF_8), Files.readString(stderr, StandardCharsets.UTF_8));
    }


}
