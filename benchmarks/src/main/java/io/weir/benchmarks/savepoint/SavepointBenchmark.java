package io.weir.benchmarks.savepoint;

import io.weir.benchmarks.BenchmarkFiles;
import io.weir.benchmarks.JsonLines;
import io.weir.benchmarks.Spread;
import io.weir.core.config.Configuration;
import io.weir.core.coordination.CompletedCheckpointStats;
import io.weir.core.engine.JobHandle;
import io.weir.core.engine.JobListener;
import io.weir.core.engine.JobResult;
import io.weir.core.engine.JobStatus;
import io.weir.core.job.JobGraph;
import io.weir.core.job.JobSpecParser;
import io.weir.core.plugin.MapPluginRegistry;
import io.weir.core.plugin.PluginRegistry;
import io.weir.runtime.engine.LocalEngine;
import jakarta.json.JsonObject;
import jakarta.json.JsonObjectBuilder;
import jakarta.json.JsonValue;
import jakarta.json.spi.JsonProvider;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.stream.Stream;

/**
 * Savepoint duration and restore time of a keyed job with 100,000 keys on the embedded engine
 * ({@link LocalEngine}, wired through ServiceLoader). See {@link SavepointJob} for the job.
 *
 * <p>A first job runs until every key has state (the sink saw every key) and {@code --warmup-s} passed.
 * Then, per round: a savepoint of the running job is triggered ({@code JobHandle.triggerSavepoint}) and
 * timed from the trigger to the completed future, its directory measured on disk; the job is cancelled; a
 * new job at {@code --rescale-to} parallelism is started from the savepoint, timed and verified, then
 * cancelled; a new job at the original parallelism is started from it, timed and verified, and becomes the
 * job of the next round. A restore is timed from just before {@code submit} (which builds the job) to: the
 * restore point chosen ({@code JobListener.onRestore}: {@code _metadata} read, every state file's CRC
 * checked), all tasks RUNNING (deployed, state restored), the first record at the sink, every key seen.
 * Verification: the first count the restored job emits for key k must be the number of rows with key k
 * the source generated before the savepoint's cut, + 1; that number comes from the benchmark's own tap
 * ({@link GeneratedCounts}), not from the engine. The source must resume at the cut's sequence number.
 *
 * <p>stdout: JSON lines, a {@code savepoint} line per round, a {@code restore} line per restore, then one
 * {@code summary} line (median, min, max and spread per measure over the rounds after the
 * {@code --warmup-rounds}). Logs go to stderr. Exit status: 0 when
 * every restore verified, 1 when a job failed, timed out or restored wrong counts, 2 on a usage error.
 * Main thread only.
 */
@Command(name = "savepoint-benchmark", mixinStandardHelpOptions = true,
        description = "Times savepoints and restores (also rescaled) of a 100k-key job; JSON lines on stdout.")
public final class SavepointBenchmark implements Callable<Integer> {
    private static final Logger LOG = LoggerFactory.getLogger(SavepointBenchmark.class);
    private static final long JOB_END_TIMEOUT_S = 30;

    @CommandLine.Spec
    private CommandLine.Model.CommandSpec spec;

    @Option(names = "--rounds", paramLabel = "N", defaultValue = "5", description = "Savepoint/restore rounds (default: ${DEFAULT-VALUE})")
    private int rounds;

    @Option(names = "--warmup-rounds", paramLabel = "N", defaultValue = "1",
            description = "Rounds run first and left out of the summary (class loading, JIT; their lines say \"warmup\": true) (default: ${DEFAULT-VALUE})")
    private int warmupRounds;

    @Option(names = "--keys", paramLabel = "N", defaultValue = "100000", description = "Distinct keys (default: ${DEFAULT-VALUE})")
    private long keys;

    @Option(names = "--parallelism", paramLabel = "N", defaultValue = "2",
            description = "Counter and sink subtasks of the running job (default: ${DEFAULT-VALUE}; the source has 2)")
    private int parallelism;

    @Option(names = "--rescale-to", paramLabel = "N", defaultValue = "4",
            description = "Counter and sink subtasks of the rescaled restore per round; 0 to skip it (default: ${DEFAULT-VALUE})")
    private int rescaleTo;

    @Option(names = "--warmup-s", paramLabel = "N", defaultValue = "5",
            description = "Seconds the first job runs before the first savepoint, at least until every key has state (default: ${DEFAULT-VALUE})")
    private int warmupS;

    @Option(names = "--run-s", paramLabel = "N", defaultValue = "2",
            description = "Seconds each restored job runs after it verified, before the next savepoint (default: ${DEFAULT-VALUE})")
    private int runS;

    @Option(names = "--timeout-s", paramLabel = "N", defaultValue = "120",
            description = "Longest wait for a savepoint or for a restored job to show every key (default: ${DEFAULT-VALUE})")
    private int timeoutS;

    @Option(names = "--dir", paramLabel = "DIR",
            description = "Checkpoint and savepoint directory (default: a temporary directory deleted afterwards); must be empty")
    private Path dir;

    private final PrintStream stdout;

    /** @param stdout where JSON lines go */
    public SavepointBenchmark(PrintStream stdout) {
        this.stdout = stdout;
    }

    /** Runs the command line; exits the JVM with the status described on the class. */
    public static void main(String[] args) {
        System.exit(new CommandLine(new SavepointBenchmark(System.out)).execute(args));
    }

    @Override
    public Integer call() throws Exception {
        if (warmupRounds < 0 || rounds < 1 || keys < 1 || keys > Integer.MAX_VALUE || parallelism < 1 || rescaleTo < 0 || warmupS < 0
                || runS < 0 || timeoutS < 1) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--rounds, --keys, --parallelism and --timeout-s must be >= 1"
                    + " (--keys at most " + Integer.MAX_VALUE + "), --rescale-to, --warmup-rounds, --warmup-s and --run-s >= 0; got "
                    + warmupRounds + ", " + rounds + ", " + keys + ", " + parallelism + ", " + timeoutS + ", " + rescaleTo + ", " + warmupS + ", " + runS);
        }
        boolean temporary = dir == null;
        Path root = temporary ? Files.createTempDirectory("weir-savepoint-benchmark-") : dir;
        if (!temporary && Files.isDirectory(root) && !isEmpty(root)) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--dir " + root
                    + " is not empty; its checkpoints would be restored. Remove it or pick another directory");
        }
        try {
            return run(root);
        } finally {
            if (temporary) {
                BenchmarkFiles.deleteRecursively(root);
            }
        }
    }

    private int run(Path root) throws Exception {
        JsonProvider json = JsonProvider.provider();
        JsonLines out = new JsonLines(json, stdout);
        GeneratedCounts truth = new GeneratedCounts(keys, SavepointJob.SOURCE_PARALLELISM);
        FirstCountSinkFactory sink = new FirstCountSinkFactory((int) keys);
        Path savepoints = root.resolve("savepoints");
        List<JsonObject> savepointLines = new ArrayList<>();
        Map<Integer, List<JsonObject>> restoreLines = new LinkedHashMap<>();
        boolean allVerified = true;

        try (LocalEngine engine = LocalEngine.fromServiceLoader(SavepointBenchmark.class.getClassLoader(), Configuration.empty())) {
            PluginRegistry plugins = engine.services().plugins();
            if (!(plugins instanceof MapPluginRegistry registry)) {
                throw new IllegalStateException("the engine's plugin registry is a " + plugins.getClass().getName()
                        + ", not a MapPluginRegistry; cannot register the benchmark's tap and sink");
            }
            registry.addOperator(new KeyCountTapFactory(truth));
            registry.addSink(sink);
            JobSpecParser parser = new JobSpecParser(registry, json);

            Timeline first = new Timeline();
            JobHandle current = engine.submit(parse(parser, json, "savepoint-bench-warm", parallelism, root, Optional.empty()), first);
            long warmStart = System.nanoTime();
            if (!awaitAllKeys(current, sink)) {
                LOG.error("The first job did not emit every one of {} keys within {} s (saw {}, status {})",
                        keys, timeoutS, sink.keysSeen(), current.status());
                endJob(current);
                return 1;
            }
            sleepUntil(warmStart + TimeUnit.SECONDS.toNanos(warmupS));
            LOG.info("Warm: every key has state after {} rows; starting {} rounds", sink.rows(), rounds);

            for (int r = 1; r <= warmupRounds + rounds; r++) {
                final int round = r;
                final boolean warmupRound = r <= warmupRounds;
                long before = truth.latestSnapshotId();
                long t0 = System.nanoTime();
                Path savepoint = current.triggerSavepoint(Optional.of(savepoints)).get(timeoutS, TimeUnit.SECONDS);
                long savepointNanos = System.nanoTime() - t0;
                long cutId = truth.latestSnapshotId();
                if (cutId <= before) {
                    throw new IllegalStateException("round " + round + ": the tap snapshotted no new checkpoint for savepoint " + savepoint);
                }
                long[][] cut = truth.at(cutId).orElseThrow(() -> new IllegalStateException(
                        "round " + round + ": not every tap subtask snapshotted savepoint " + savepoint));
                truth.forgetBefore(cutId);
                JsonObjectBuilder line = json.createObjectBuilder()
                        .add("type", "savepoint").add("round", round).add("warmup", warmupRound).add("parallelism", parallelism)
                        .add("savepoint_ms", millis(savepointNanos));
                CompletedCheckpointStats stats = timelineOf(current, first).completed.get(cutId);
                if (stats != null) {
                    line.add("end_to_end_ms", stats.endToEndDurationMs())
                            .add("sync_ms_max", stats.subtasks().values().stream().mapToLong(m -> m.syncDurationMs()).max().orElse(0))
                            .add("async_ms_max", stats.subtasks().values().stream().mapToLong(m -> m.asyncDurationMs()).max().orElse(0))
                            .add("state_bytes", stats.checkpointedSizeBytes());
                }
                line.add("size_on_disk_bytes", sizeOnDisk(savepoint)).add("files", fileCount(savepoint))
                        .add("rows_before_cut", sum(cut)).add("path", savepoint.toString()).add("load_average_1m", loadAverage());
                JsonObject savepointLine = line.build();
                if (!warmupRound) {
                    savepointLines.add(savepointLine);
                }
                out.write(savepointLine);
                endJob(current);

                if (rescaleTo > 0) {
                    Restore rescaled = restore(engine, parser, json, root, sink, truth, savepoint, cut, round, warmupRound, rescaleTo);
                    out.write(rescaled.line);
                    if (!warmupRound) {
                        restoreLines.computeIfAbsent(rescaleTo, p -> new ArrayList<>()).add(rescaled.line);
                    }
                    allVerified &= rescaled.verified;
                    endJob(rescaled.handle);
                }
                Restore same = restore(engine, parser, json, root, sink, truth, savepoint, cut, round, warmupRound, parallelism);
                out.write(same.line);
                if (!warmupRound) {
                    restoreLines.computeIfAbsent(parallelism, p -> new ArrayList<>()).add(same.line);
                }
                allVerified &= same.verified;
                current = same.handle;
                timelines.put(current, same.timeline);
                if (!same.verified || current.status().isTerminal()) {
                    break;
                }
                sleepUntil(System.nanoTime() + TimeUnit.SECONDS.toNanos(runS));
            }
            endJob(current);

            JsonObjectBuilder summary = json.createObjectBuilder().add("type", "summary")
                    .add("keys", keys).add("rounds", savepointLines.size()).add("warmup_rounds", warmupRounds)
                    .add("savepoint_ms", spread(json, savepointLines, "savepoint_ms"))
                    .add("size_on_disk_bytes", spread(json, savepointLines, "size_on_disk_bytes"));
            for (Map.Entry<Integer, List<JsonObject>> e : restoreLines.entrySet()) {
                JsonObjectBuilder r = json.createObjectBuilder().add("restores", e.getValue().size());
                for (String part : List.of("submit_ms", "restore_point_ms", "tasks_running_ms", "first_record_ms", "all_keys_ms")) {
                    r.add(part, spread(json, e.getValue(), part));
                }
                summary.add("restore_p" + parallelism + "_to_p" + e.getKey(), r);
            }
            summary.add("all_verified", allVerified).add("load_average_1m", loadAverage());
            out.write(summary.build());
        }
        return allVerified ? 0 : 1;
    }

    /** Status and checkpoint events of one job, with their {@link System#nanoTime()}. Thread-safe. */
    private static final class Timeline implements JobListener {
        final Map<Long, CompletedCheckpointStats> completed = new ConcurrentHashMap<>();
        volatile long restoreNanos;
        volatile long runningNanos;

        @Override
        public void onCompleted(CompletedCheckpointStats stats) {
            completed.put(stats.checkpointId(), stats);
        }

        @Override
        public void onRestore(String jobName, long checkpointId, String pointer) {
            if (restoreNanos == 0) {
                restoreNanos = System.nanoTime();
            }
        }

        @Override
        public void onStatusChange(String jobName, JobStatus from, JobStatus to) {
            if (to == JobStatus.RUNNING && runningNanos == 0) {
                runningNanos = System.nanoTime();
            }
        }
    }

    private final Map<JobHandle, Timeline> timelines = new ConcurrentHashMap<>();

    private Timeline timelineOf(JobHandle handle, Timeline first) {
        return timelines.getOrDefault(handle, first);
    }

    /** A restored job, still running, with its measurements. */
    private record Restore(JobHandle handle, Timeline timeline, JsonObject line, boolean verified) {
    }

    private Restore restore(LocalEngine engine, JobSpecParser parser, JsonProvider json, Path root, FirstCountSinkFactory sink,
            GeneratedCounts truth, Path savepoint, long[][] cut, int round, boolean warmupRound, int toParallelism) throws Exception {
        truth.start(Optional.of(cut));
        sink.reset();
        String name = "savepoint-bench-r" + round + "-p" + toParallelism;
        JobGraph job = parse(parser, json, name, toParallelism, root, Optional.of(savepoint));
        Timeline timeline = new Timeline();
        long t0 = System.nanoTime();
        JobHandle handle = engine.submit(job, timeline);
        long submitted = System.nanoTime();
        boolean complete = awaitAllKeys(handle, sink);
        long allKeys = System.nanoTime();

        int mismatches = 0;
        List<String> examples = new ArrayList<>();
        for (int k = 0; k < keys; k++) {
            long expected = 1;
            for (long[] subtask : cut) {
                expected += subtask[k];
            }
            long actual = sink.firstCount(k);
            if (actual != expected) {
                mismatches++;
                if (examples.size() < 3) {
                    examples.add("key " + k + ": first count " + actual + ", expected " + expected);
                }
            }
        }
        boolean sourceResumed = true;
        for (int i = 0; i < cut.length; i++) {
            long expectedSeq = 0;
            for (long c : cut[i]) {
                expectedSeq += c;
            }
            if (truth.firstSeq(i) != expectedSeq) {
                sourceResumed = false;
                examples.add("source subtask " + i + " resumed at seq " + truth.firstSeq(i) + ", expected " + expectedSeq);
            }
        }
        boolean verified = complete && mismatches == 0 && sourceResumed;
        if (!verified) {
            LOG.error("Restore of {} into {} is wrong: {} of {} keys seen, {} wrong first counts, source resumed: {} {}",
                    savepoint, name, sink.keysSeen(), keys, mismatches, sourceResumed, examples);
        }
        JsonObjectBuilder line = json.createObjectBuilder()
                .add("type", "restore").add("round", round).add("warmup", warmupRound)
                .add("from_parallelism", parallelism).add("to_parallelism", toParallelism)
                .add("submit_ms", millis(submitted - t0))
                .add("restore_point_ms", sinceOrNull(timeline.restoreNanos, t0))
                .add("tasks_running_ms", sinceOrNull(timeline.runningNanos, t0))
                .add("first_record_ms", sinceOrNull(sink.firstRowNanos(), t0))
                .add("all_keys_ms", complete ? json.createValue(millis(allKeys - t0)) : JsonValue.NULL)
                .add("keys_seen", sink.keysSeen())
                .add("wrong_first_counts", mismatches)
                .add("source_resumed_at_cut", sourceResumed)
                .add("verified", verified)
                .add("load_average_1m", loadAverage());
        return new Restore(handle, timeline, line.build(), verified);
    }

    private JobGraph parse(JobSpecParser parser, JsonProvider json, String name, int p, Path root, Optional<Path> savepoint) throws Exception {
        Map<String, String> overrides = new LinkedHashMap<>();
        savepoint.ifPresent(s -> overrides.put("execution.savepoint.path", s.toString()));
        return parser.parse(SavepointJob.build(json, name, keys, p, root.resolve("checkpoints")).toString(), root, overrides);
    }

    /** @return whether the sink saw every key before the timeout and while the job ran */
    private boolean awaitAllKeys(JobHandle handle, FirstCountSinkFactory sink) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(timeoutS);
        while (System.nanoTime() < deadline) {
            if (sink.awaitAllKeys(100, TimeUnit.MILLISECONDS)) {
                return true;
            }
            if (handle.status().isTerminal()) {
                LOG.error("Job {} ended {} before every key was seen", handle.jobName(), handle.status());
                return false;
            }
        }
        return false;
    }

    /** Cancels the job unless it ended, and waits for its end. */
    private static void endJob(JobHandle handle) throws Exception {
        if (!handle.status().isTerminal()) {
            handle.cancel();
        }
        JobResult result = handle.result().get(JOB_END_TIMEOUT_S, TimeUnit.SECONDS);
        if (result.failure() != null) {
            LOG.warn("Job {} ended {}", handle.jobName(), result.status(), result.failure());
        }
    }

    private static JsonObject spread(JsonProvider json, List<JsonObject> lines, String field) {
        List<Double> values = lines.stream().filter(l -> l.containsKey(field) && l.get(field).getValueType() == JsonValue.ValueType.NUMBER)
                .map(l -> l.getJsonNumber(field).doubleValue()).toList();
        if (values.isEmpty()) {
            return json.createObjectBuilder().add("counted", 0).build();
        }
        Spread s = Spread.of(values);
        return json.createObjectBuilder().add("counted", s.count()).add("median", s.median()).add("min", s.min())
                .add("max", s.max()).add("spread_percent", s.spreadPercent()).build();
    }

    private static JsonValue sinceOrNull(long nanos, long t0) {
        return nanos == 0 ? JsonValue.NULL : JsonProvider.provider().createValue(millis(nanos - t0));
    }

    private static double millis(long nanos) {
        return Math.round(nanos / 100_000.0) / 10.0;
    }

    private static long sum(long[][] counts) {
        long s = 0;
        for (long[] c : counts) {
            for (long v : c) {
                s += v;
            }
        }
        return s;
    }

    private static double loadAverage() {
        return Math.round(ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage() * 100) / 100.0;
    }

    private static void sleepUntil(long nanoDeadline) throws InterruptedException {
        long remaining = nanoDeadline - System.nanoTime();
        if (remaining > 0) {
            TimeUnit.NANOSECONDS.sleep(remaining);
        }
    }

    private static long sizeOnDisk(Path dir) throws IOException {
        return walk(dir, s -> s.filter(Files::isRegularFile).mapToLong(p -> {
            try {
                return Files.size(p);
            } catch (IOException e) {
                throw new UncheckedIOException("cannot read the size of " + p, e);
            }
        }).sum());
    }

    private static long fileCount(Path dir) throws IOException {
        return walk(dir, s -> s.filter(Files::isRegularFile).count());
    }

    private static <T> T walk(Path dir, Function<Stream<Path>, T> f) throws IOException {
        try (Stream<Path> s = Files.walk(dir)) {
            return f.apply(s);
        }
    }

    private static boolean isEmpty(Path dir) throws IOException {
        try (Stream<Path> entries = Files.list(dir)) {
            return entries.findAny().isEmpty();
        }
    }

}
