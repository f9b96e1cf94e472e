package io.weir.distribution;

import jakarta.json.Json;
import jakarta.json.JsonObject;
import jakarta.json.JsonReader;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.BufferedWriter;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
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
 * The two refusals of issue 6 that protect a job's checkpoints, through {@code bin/weir} as a user
 * runs it: a second run of a running job (the run lock, {@code _run.lock}), and a completed checkpoint
 * whose state file was damaged (CRC32 in {@code _metadata} format v4). Both must stop the run with a
 * non-zero exit and a message saying what is wrong and how to go on, and going on as told must work.
 *
 * <p>The job is ProcessKillResumeIT's flight-delays job with {@value #ORIGINS} origins, so each keyed
 * subtask's state (~10 KB) is bigger than the 4 KB inline threshold and lands in a state file; the
 * aggregate sleeps 1 ms per record so that a run lasts long enough (~10 s) to act on it while it runs.
 */
class CheckpointIntegrityIT {
    private static final Logger LOG = LoggerFactory.getLogger(CheckpointIntegrityIT.class);
    private static final Path HOME = Path.of(System.getProperty("weir.home", "target/weir")).toAbsolutePath();
    private static final Path WEIR = HOME.resolve("bin/weir");

    private static final String JOB = "integrity";
    private static final int RECORDS = 20_000;
    private static final int ORIGINS = 600;
    private static final long SEED = 20_261_201L;
    private static final Pattern CHECKPOINT_DIR = Pattern.compile("chk-(\\d+)");
    private static final Duration RUN_TIMEOUT = Duration.ofSeconds(90);

    @TempDir
    Path work;

    /** Expected aggregate of one origin. */
    record Truth(long count, long delaySum) {
    }

    /** What a finished {@code bin/weir} process left behind. */
    record Run(int exitCode, String out, String err) {
        String all() {
            return out + "\n" + err;
        }

        @Override
        public String toString() {
            return "exit " + exitCode + "\n--- stdout ---\n" + out + "\n--- stderr ---\n" + err;
        }
    }

    @Test
    void aSecondRunOfARunningJobIsRefusedNamingThePidAndARerunAfterKillDashNineResumes() throws Exception {
        Map<String, Truth> truth = writeFlights(work.resolve("flights.jsonl"));
        Path checkpoints = work.resolve("checkpoints");
        Path out = work.resolve("out");
        Path job = writeJob(work.resolve("flights.jsonl"), checkpoints, out);
        Path jobDir = checkpoints.resolve(JOB);

        Path out1 = work.resolve("run1-stdout.txt");
        Path err1 = work.resolve("run1-stderr.txt");
        Process first = start(job, out1, err1);
        try {
            await("the first run holds the run lock").atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(20))
                    .until(() -> !first.isAlive() || Files.exists(jobDir.resolve("_run.lock"))
                            && Files.readString(jobDir.resolve("_run.lock")).contains("pid=" + first.pid()));
            assertThat(first.isAlive()).as("first run ended too early: %s", describe(first, out1, err1)).isTrue();

            long before = System.nanoTime();
            Run second = run(job, work.resolve("run2-stdout.txt"), work.resolve("run2-stderr.txt"));
            LOG.info("Second run refused after {} ms: {}", (System.nanoTime() - before) / 1_000_000, second);
            assertThat(second.exitCode()).as(second.toString()).isNotZero();
            assertThat(second.all()).as(second.toString())
                    .contains("job " + JOB + " is already running: process " + first.pid() + " (started ")
                    .contains(jobDir.resolve("_run.lock").toRealPath().toString())
                    .doesNotContain("Restoring job");
            assertThat(first.isAlive()).as("the refused run left the first alone: %s", describe(first, out1, err1)).isTrue();

            // the first run still completes checkpoints after the refusal, then dies by SIGKILL
            long seen = latestCompletedCheckpoint(jobDir).orElse(0L);
            await("a checkpoint completed after the refused run").atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(20))
                    .until(() -> !first.isAlive() || latestCompletedCheckpoint(jobDir).orElse(0L) > seen + 1);
            assertThat(first.isAlive()).as("first run ended before it could be killed: %s", describe(first, out1, err1)).isTrue();
        } finally {
            killWithDescendants(first);
        }
        long latest = latestCompletedCheckpoint(jobDir).orElseThrow();

        // the lock died with its holder: a rerun takes it, resumes and finishes exactly-once
        Run third = run(job, work.resolve("run3-stdout.txt"), work.resolve("run3-stderr.txt"));
        assertThat(third.exitCode()).as(third.toString()).isZero();
        assertThat(third.out()).as(third.toString()).contains("Restoring job " + JOB + " from checkpoint " + latest);
        assertExactlyOnce(out, truth);
    }

    @Test
    void aDamagedStateFileStopsTheRunNamingItAndMovingTheCheckpointAsideRestoresThePreviousOne() throws Exception {
        Map<String, Truth> truth = writeFlights(work.resolve("flights.jsonl"));
        Path checkpoints = work.resolve("checkpoints");
        Path out = work.resolve("out");
        Path job = writeJob(work.resolve("flights.jsonl"), checkpoints, out);
        Path jobDir = checkpoints.resolve(JOB);

        Path out1 = work.resolve("run1-stdout.txt");
        Path err1 = work.resolve("run1-stderr.txt");
        Process first = start(job, out1, err1);
        try {
            await("two retained checkpoints, the newest with a state file").atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(20))
                    .until(() -> !first.isAlive() || completedCheckpoints(jobDir).size() >= 2
                            && !stateFiles(jobDir.resolve("chk-" + completedCheckpoints(jobDir).get(0))).isEmpty());
            assertThat(first.isAlive()).as("first run ended before it could be killed: %s", describe(first, out1, err1)).isTrue();
        } finally {
            killWithDescendants(first);
        }
        List<Long> completed = completedCheckpoints(jobDir);
        long newest = completed.get(0);
        long previous = completed.get(1);
        Path newestDir = jobDir.resolve("chk-" + newest);
        Path damaged = stateFiles(newestDir).get(0);
        flipByte(damaged, Files.size(damaged) / 2);
        LOG.info("Flipped a byte of {} ({} bytes) in checkpoint {}; previous completed checkpoint {}", damaged, Files.size(damaged),
                newest, previous);

        Run refused = run(job, work.resolve("run2-stdout.txt"), work.resolve("run2-stderr.txt"));
        LOG.info("Run on the damaged checkpoint: {}", refused);
        assertThat(refused.exitCode()).as(refused.toString()).isNotZero();
        assertThat(refused.all()).as(refused.toString())
                .contains("checkpoint " + newest + " of job " + JOB + " cannot be restored")
                .contains(damaged.toString())
                .contains("CRC32 mismatch")
                .contains("mv " + newestDir)
                .doesNotContain("Restoring job " + JOB);

        // the deliberate fallback the message offers
        Files.move(newestDir, newestDir.resolveSibling("chk-" + newest + ".corrupt"));
        Run fallback = run(job, work.resolve("run3-stdout.txt"), work.resolve("run3-stderr.txt"));
        assertThat(fallback.exitCode()).as(fallback.toString()).isZero();
        assertThat(fallback.out()).as(fallback.toString()).contains("Restoring job " + JOB + " from checkpoint " + previous);
        // output committed after `previous` is written again (the message says so); the state restored is right:
        assertFinalAggregates(out, truth);
    }

    /** Every update per origin committed once: counts 1..N each once, the last average = sum / N; nothing in progress. */
    private static void assertExactlyOnce(Path out, Map<String, Truth> truth) throws IOException {
        Map<String, List<JsonObject>> byOrigin = byOrigin(out);
        assertThat(byOrigin.keySet()).as("origins in the committed output").isEqualTo(truth.keySet());
        for (Map.Entry<String, Truth> e : truth.entrySet()) {
            List<Long> counts = byOrigin.get(e.getKey()).stream().map(r -> r.getJsonNumber("flights").longValueExact()).sorted().toList();
            assertThat(counts).as("'flights' values committed for origin %s", e.getKey())
                    .containsExactlyElementsOf(LongStream.rangeClosed(1, e.getValue().count()).boxed().toList());
        }
        assertFinalAggregates(out, truth);
    }

    /** The last update of every origin has the full count and the right average: the restored state was intact. */
    private static void assertFinalAggregates(Path out, Map<String, Truth> truth) throws IOException {
        Map<String, List<JsonObject>> byOrigin = byOrigin(out);
        for (Map.Entry<String, Truth> e : truth.entrySet()) {
            Truth t = e.getValue();
            JsonObject last = byOrigin.getOrDefault(e.getKey(), List.of()).stream()
                    .filter(r -> r.getJsonNumber("flights").longValueExact() == t.count()).findFirst()
                    .orElseThrow(() -> new AssertionError("no row with all " + t.count() + " flights of origin " + e.getKey()));
            assertThat(last.getJsonNumber("avg_delay").doubleValue()).as("avg_delay of origin %s: %s", e.getKey(), last)
                    .isCloseTo((double) t.delaySum() / t.count(), offset(1e-9));
        }
    }

    private static Map<String, List<JsonObject>> byOrigin(Path out) throws IOException {
        try (Stream<Path> files = Files.list(out)) {
            assertThat(files.map(p -> p.getFileName().toString()).filter(n -> n.endsWith(".inprogress")))
                    .as("in-progress files left in %s", out).isEmpty();
        }
        return rows(out).stream().collect(Collectors.groupingBy(r -> r.getString("origin"), TreeMap::new, Collectors.toList()));
    }

    /** Writes {@value #RECORDS} flights over {@value #ORIGINS} origins from {@link #SEED}; returns the truth per origin. */
    private static Map<String, Truth> writeFlights(Path file) throws IOException {
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
            for (int i = 0; i < RECORDS; i++) {
                String origin = airports.get(random.nextInt(ORIGINS));
                long delay = -30 + random.nextInt(331);
                w.write(Json.createObjectBuilder().add("date", "2001/01/01 00:00").add("delay", delay)
                        .add("distance", 50 + random.nextInt(4950)).add("origin", origin)
                        .add("destination", airports.get(random.nextInt(ORIGINS))).build().toString());
                w.write('\n');
                truth.merge(origin, new Truth(1, delay), (a, b) -> new Truth(a.count() + 1, a.delaySum() + b.delaySum()));
            }
        }
        return truth;
    }

    /** The flight-delays job, throttled to 1 ms per record, checkpointing every 100 ms and keeping 2 checkpoints. */
    private static Path writeJob(Path input, Path checkpoints, Path out) throws IOException {
        JsonObject job = Json.createObjectBuilder()
                .add("name", JOB)
                .add("config", Json.createObjectBuilder()
                        .add("execution.checkpointing.interval", "100 ms")
                        .add("execution.checkpointing.num-retained", 2)
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
                                        .add("sleep-ms-per-record", 1)))
                        .add(Json.createObjectBuilder().add("id", "out").add("type", "file-2pc").add("parallelism", 2)
                                .add("inputs", Json.createArrayBuilder().add("per-origin"))
                                .add("config", Json.createObjectBuilder().add("path", out.toString()))))
                .build();
        Path file = input.resolveSibling(JOB + ".json");
        Files.writeString(file, job.toString(), StandardCharsets.UTF_8);
        return file;
    }

    /** Ids of the {@code chk-<id>} directories with a {@code _metadata}, newest first. */
    private static List<Long> completedCheckpoints(Path jobDir) throws IOException {
        if (!Files.isDirectory(jobDir)) {
            return List.of();
        }
        try (Stream<Path> dirs = Files.list(jobDir)) {
            return dirs.filter(d -> Files.exists(d.resolve("_metadata")))
                    .map(d -> CHECKPOINT_DIR.matcher(d.getFileName().toString()))
                    .filter(Matcher::matches)
                    .map(m -> Long.parseLong(m.group(1)))
                    .sorted(java.util.Comparator.reverseOrder())
                    .toList();
        }
    }

    private static Optional<Long> latestCompletedCheckpoint(Path jobDir) throws IOException {
        return completedCheckpoints(jobDir).stream().findFirst();
    }

    /** The state files (named by UUID) of one checkpoint directory, sorted; empty if it is gone. */
    private static List<Path> stateFiles(Path checkpointDir) throws IOException {
        try (Stream<Path> files = Files.list(checkpointDir)) {
            return files.filter(f -> !f.getFileName().toString().startsWith("_metadata")).sorted().toList();
        } catch (java.nio.file.NoSuchFileException e) {
            return List.of();
        }
    }

    private static void flipByte(Path file, long position) throws IOException {
        try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "rw")) {
            f.seek(position);
            int b = f.read();
            f.seek(position);
            f.write(b ^ 0x20);
        }
    }



    private Process start(Path job, Path stdout, Path stderr) throws IOException {
        Process p = new ProcessBuilder(WEIR.toString(), "run", job.toString()).directory(work.toFile())
                .redirectOutput(stdout.toFile()).redirectError(stderr.toFile()).redirectInput(ProcessBuilder.Redirect.PIPE).start();
        p.getOutputStream().close();
        return p;
    }

    private Run run(Path job, Path stdout, Path stderr) throws IOException, InterruptedException {
        Process p = start(job, stdout, stderr);
        if (!p.waitFor(RUN_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
            killWithDescendants(p);
            throw new AssertionError("bin/weir run " + job + " did not end within " + RUN_TIMEOUT.toSeconds() + " s: " + describe(p, stdout, stderr));
        }
        return new Run(p.exitValue(), Files.readString(stdout, StandardCharsets.UTF_8), Files.readString(stderr, StandardCharsets.UTF_8));
    }


}
