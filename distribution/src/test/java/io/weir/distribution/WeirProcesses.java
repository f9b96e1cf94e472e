package io.weir.distribution;

import jakarta.json.Json;
import jakarta.json.JsonNumber;
import jakarta.json.JsonObject;
import jakarta.json.JsonObjectBuilder;
import jakarta.json.JsonReader;
import jakarta.json.spi.JsonProvider;

import java.io.BufferedWriter;
import java.io.IOException;
import java.io.StringReader;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Collectors;
import java.util.stream.LongStream;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.offset;

/**
 * What the distribution ITs share: killing or stopping a {@code bin/weir} process tree, describing it; generating seeded
 * flights with their ground truth and the flight-delays job over them; reading committed output and checking it
 * exactly-once against that truth. A node and its CLI are driven by {@link NodeSession}.
 */
final class WeirProcesses {
    /** One provider: {@code Json.createReader} and friends look the provider up again on every call (slow for 100k rows). */
    private static final JsonProvider JSON = JsonProvider.provider();

    private WeirProcesses() {
    }

    /** SIGKILL ({@link Process#destroyForcibly()} on Linux) to the process and its descendants; waits up to 10 s for all to end. */
    static void killWithDescendants(Process p) throws InterruptedException {
        List<ProcessHandle> all = new ArrayList<>(p.descendants().toList());
        all.forEach(ProcessHandle::destroyForcibly);
        p.destroyForcibly();
        all.add(p.toHandle());
        for (ProcessHandle h : all) {
            try {
                h.onExit().get(10, TimeUnit.SECONDS);
            } catch (ExecutionException | TimeoutException e) {
                throw new AssertionError("process " + h.pid() + " did not die within 10 s of SIGKILL", e);
            }
        }
    }

    static String describe(Process p, Path stdout, Path stderr) throws IOException {
        return (p.isAlive() ? "running" : "exit " + p.exitValue()) + "\n--- stdout ---\n" + Files.readString(stdout, StandardCharsets.UTF_8)
                + "\n--- stderr ---\n" + Files.readString(stderr, StandardCharsets.UTF_8);
    }

    /** Committed (visible) sink files: {@code part-*.jsonl}. */
    static List<Path> committedFiles(Path out) throws IOException {
        if (!Files.isDirectory(out)) {
            return List.of();
        }
        try (Stream<Path> files = Files.list(out)) {
            return files.filter(p -> p.getFileName().toString().startsWith("part-") && p.getFileName().toString().endsWith(".jsonl"))
                    .sorted().toList();
        }
    }

    /** Every row of every committed file, parsed. */
    static List<JsonObject> rows(Path out) throws IOException {
        List<JsonObject> rows = new ArrayList<>();
        for (Path file : committedFiles(out)) {
            for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
                if (line.isBlank()) {
                    continue;
                }
                rows.add(json(line));
            }
        }
        return rows;
    }

    /** What a finished {@code bin/weir} process left behind: its exit code, stdout and stderr. */
    record Run(int exitCode, String out, String err) {
        @Override
        public String toString() {
            return "exit " + exitCode + "\n--- stdout ---\n" + out + "\n--- stderr ---\n" + err;
        }
    }

    /** Expected aggregate of one origin: record count and sum of {@code delay}. */
    record Truth(long count, long delaySum) {
    }

    /** Origins of generated flights: {@code AA}..{@code AT}. */
    static final int ORIGINS = 20;

    /**
     * Writes {@code records} JSON-lines flights drawn from {@code new Random(seed)} (origin one of {@value #ORIGINS}, delay
     * -30..300) and returns, computed while writing, each origin's count and delay sum.
     */
    static Map<String, Truth> writeFlights(Path file, int records, long seed) throws IOException {
        Random random = new Random(seed);
        Map<String, Truth> truth = new TreeMap<>();
        try (BufferedWriter w = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
            for (int i = 0; i < records; i++) {
                String origin = "A" + (char) ('A' + random.nextInt(ORIGINS));
                long delay = -30 + random.nextInt(331);
                w.write(JSON.createObjectBuilder().add("date", "2001/01/01 00:00").add("delay", delay).add("distance", 100)
                        .add("origin", origin).add("destination", "ZZZ").build().toString());
                w.write('\n');
                truth.merge(origin, new Truth(1, delay), (x, y) -> new Truth(x.count() + 1, x.delaySum() + y.delaySum()));
            }
        }
        return truth;
    }

    /**
     * Lets a {@code file} source holding on its {@code release-file} read {@code records} records (over all subtasks) in
     * all: writes the number to a staging file and moves it over {@code gate} atomically (a half-written file would read
     * as "hold").
     */
    static void release(Path gate, int records) throws IOException {
        Path staging = gate.resolveSibling(gate.getFileName() + ".staging");
        Files.writeString(staging, records + "\n");
        Files.move(staging, gate, java.nio.file.StandardCopyOption.ATOMIC_MOVE, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
    }

    /**
     * Writes {@code <input's directory>/<fileName>}: the flight-delays job on {@code input} (file source, parallelism 1) →
     * {@code per-origin} (keyed count and average delay, sleeping {@code sleepMs} per record) → {@code out} (file-2pc
     * into {@code out}), the last two with {@code parallelism}, checkpointing every 100 ms into {@code checkpoints};
     * {@code config} entries are added to the job's config.
     */
    static Path writeFlightJob(String fileName, String name, Path input, Path checkpoints, Path out, int sleepMs, int parallelism,
                               Map<String, String> config) throws IOException {
        JsonObjectBuilder jobConfig = Json.createObjectBuilder()
                .add("execution.checkpointing.interval", "100 ms")
                .add("execution.checkpointing.dir", checkpoints.toString());
        config.forEach(jobConfig::add);
        JsonObject job = Json.createObjectBuilder()
                .add("name", name)
                .add("config", jobConfig)
                .add("operators", Json.createArrayBuilder()
                        .add(Json.createObjectBuilder().add("id", "flights").add("type", "file").add("parallelism", 1)
                                .add("config", Json.createObjectBuilder().add("path", input.getFileName().toString()).add("format", "lines")
                                        .add("schema", Json.createObjectBuilder().add("date", "string").add("delay", "long")
                                                .add("distance", "long").add("origin", "string").add("destination", "string"))))
                        .add(Json.createObjectBuilder().add("id", "per-origin").add("type", "keyed-aggregate").add("parallelism", parallelism)
                                .add("inputs", Json.createArrayBuilder().add(Json.createObjectBuilder().add("from", "flights")
                                        .add("partitioning", "hash").add("keys", Json.createArrayBuilder().add("origin"))))
                                .add("config", Json.createObjectBuilder()
                                        .add("key", Json.createArrayBuilder().add("origin"))
                                        .add("aggregates", Json.createArrayBuilder()
                                                .add(Json.createObjectBuilder().add("fn", "count").add("as", "flights"))
                                                .add(Json.createObjectBuilder().add("fn", "avg").add("field", "delay").add("as", "avg_delay")))
                                        .add("sleep-ms-per-record", sleepMs)))
                        .add(Json.createObjectBuilder().add("id", "out").add("type", "file-2pc").add("parallelism", parallelism)
                                .add("inputs", Json.createArrayBuilder().add("per-origin"))
                                .add("config", Json.createObjectBuilder().add("path", out.toString()))))
                .build();
        Path file = input.resolveSibling(fileName);
        Files.writeString(file, job.toString(), StandardCharsets.UTF_8);
        return file;
    }

    /**
     * Every update per origin committed once: for each origin of {@code truth} the committed {@code flights} values are
     * exactly 1..N (N its count), the row with N has avg_delay = sum / N, no other origin appears and no in-progress
     * file is left.
     */
    static void assertExactlyOnce(Path out, Map<String, Truth> truth) throws IOException {
        assertNoInProgressFiles(out);
        assertCommittedExactlyOnce(out, truth);
    }

    /** {@link #assertExactlyOnce} without the check for in-progress files (never committed output). */
    static void assertCommittedExactlyOnce(Path out, Map<String, Truth> truth) throws IOException {
        Map<String, List<JsonObject>> byOrigin = byOrigin(out);
        assertThat(byOrigin.keySet()).as("origins in the committed output").isEqualTo(truth.keySet());
        for (Map.Entry<String, Truth> e : truth.entrySet()) {
            Truth t = e.getValue();
            List<Long> counts = byOrigin.get(e.getKey()).stream().map(r -> r.getJsonNumber("flights").longValueExact()).sorted().toList();
            assertThat(counts).as("'flights' values committed for origin %s (1..%d, each once)", e.getKey(), t.count())
                    .containsExactlyElementsOf(LongStream.rangeClosed(1, t.count()).boxed().toList());
            JsonObject last = byOrigin.get(e.getKey()).stream()
                    .filter(r -> r.getJsonNumber("flights").longValueExact() == t.count()).findFirst().orElseThrow();
            JsonNumber avg = last.getJsonNumber("avg_delay");
            assertThat(avg.doubleValue()).as("avg_delay of %s", e.getKey()).isCloseTo((double) t.delaySum() / t.count(), offset(1e-9));
        }
    }

    /**
     * What a job that was cancelled commits: a consistent cut, so per origin of {@code truth} the committed {@code flights}
     * values are exactly 1..k for some k ≤ its count (no gap, no duplicate); returns the number of committed rows.
     */
    static long assertCommittedPrefix(Path out, Map<String, Truth> truth) throws IOException {
        Map<String, List<JsonObject>> byOrigin = byOrigin(out);
        assertThat(truth.keySet()).as("origins in the committed output").containsAll(byOrigin.keySet());
        long total = 0;
        for (Map.Entry<String, List<JsonObject>> e : byOrigin.entrySet()) {
            List<Long> counts = e.getValue().stream().map(r -> r.getJsonNumber("flights").longValueExact()).sorted().toList();
            assertThat(counts).as("'flights' values committed for origin %s (1..k, each once)", e.getKey())
                    .containsExactlyElementsOf(LongStream.rangeClosed(1, counts.size()).boxed().toList());
            assertThat((long) counts.size()).isLessThanOrEqualTo(truth.get(e.getKey()).count());
            total += counts.size();
        }
        return total;
    }

    private static void assertNoInProgressFiles(Path out) throws IOException {
        try (Stream<Path> files = Files.list(out)) {
            assertThat(files.map(p -> p.getFileName().toString()).filter(n -> n.endsWith(".inprogress")))
                    .as("in-progress files left in %s", out).isEmpty();
        }
    }

    private static Map<String, List<JsonObject>> byOrigin(Path out) throws IOException {
        return rows(out).stream().collect(Collectors.groupingBy(r -> r.getString("origin"), TreeMap::new, Collectors.toList()));
    }

    /** Parses one JSON object. */
    static JsonObject json(String text) {
        try (JsonReader r = JSON.createReader(new StringReader(text))) {
            return r.readObject();
        }
    }

    /** A port on 127.0.0.1 that was free a moment ago. */
    static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
            return s.getLocalPort();
        }
    }

    /** SIGTERM, then SIGKILL after 15 s, to the process and its descendants. */
    static void stop(Process p) throws InterruptedException {
        List<ProcessHandle> all = new ArrayList<>(p.descendants().toList());
        p.destroy();
        if (!p.waitFor(15, TimeUnit.SECONDS)) {
            all.forEach(ProcessHandle::destroyForcibly);
            p.destroyForcibly();
            p.waitFor(10, TimeUnit.SECONDS);
        }
    }

    /** The absolute savepoint directory a CLI run printed after {@code prefix}; asserts it exists. */
    static Path savepointPath(Run run, String prefix) {
        String line = run.out().lines().filter(l -> l.contains(prefix)).findFirst()
                .orElseThrow(() -> new AssertionError("no '" + prefix + "' in " + run));
        Path path = Path.of(line.substring(line.indexOf(prefix) + prefix.length()).strip());
        assertThat(path).as(run.toString()).isAbsolute().isDirectory();
        return path;
    }
}
