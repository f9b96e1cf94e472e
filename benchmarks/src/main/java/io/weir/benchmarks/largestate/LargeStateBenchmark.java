package io.weir.benchmarks.largestate;

import io.weir.benchmarks.BenchmarkFiles;
import io.weir.benchmarks.BenchmarkJob;
import io.weir.benchmarks.CheckpointRecorder;
import io.weir.benchmarks.JsonLines;
import io.weir.benchmarks.RowObserverSinkFactory;
import io.weir.benchmarks.Variant;
import io.weir.benchmarks.savepoint.FirstCountSinkFactory;
import io.weir.core.config.Configuration;
import io.weir.core.coordination.CompletedCheckpointStats;
import io.weir.core.engine.JobHandle;
import io.weir.core.engine.JobResult;
import io.weir.core.job.InvalidJobException;
import io.weir.core.job.JobGraph;
import io.weir.core.job.JobSpecParser;
import io.weir.core.plugin.MapPluginRegistry;
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
import java.io.InputStream;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import java.util.zip.GZIPInputStream;

/**
 * Checkpoint sizes and restore time of a large keyed state on the embedded engine ({@link LocalEngine}, wired
 * through ServiceLoader), for issue 12's large-state variant. Two jobs ({@code --job}):
 * <ul>
 *   <li>{@code hourly}: {@link HourlyJob}, average delay per origin per hour over a flights file (3 M flights);
 *       the source reads {@code --release-records} records, then idles while checkpoints go on;</li>
 *   <li>{@code 10m-keys}: the {@code rocksdb-10m-keys} {@link Variant} (datagen, 10,000,000 keys, keyed count);
 *       the first phase runs until the sink saw every key (every key has state) or {@code --fill-timeout-s}.</li>
 * </ul>
 * Phase 1 then waits for {@code --checkpoints} more completed checkpoints and cancels the job. Phase 2 submits the
 * same job again, which restores from the latest retained checkpoint in its directory, and times from just before
 * {@code submit}: the restore point chosen ({@code _metadata} read), RUNNING (every task's state restored: RocksDB
 * files downloaded and the instance opened, or the heap filled), the first row at the sink, and all keys served
 * ({@code 10m-keys}: every key's first row since the restore, whose count must be the restored count + 1;
 * {@code hourly}: the rest of the file read, windows fired and the job FINISHED). The RocksDB backend's own split
 * (download, open, clip) is in its INFO log line ({@code run.sh large-state} enables it on stderr).
 *
 * <p>stdout: JSON lines: a {@code checkpoint} line per completed checkpoint ({@link CheckpointRecorder}:
 * {@code state_size_bytes} is the full state, {@code checkpointed_size_bytes} what this checkpoint uploaded), a
 * {@code fill} summary of phase 1 and a {@code restore} line. Exit status: 0 when both phases ran and the
 * restore served what it should, 1 otherwise, 2 on a usage error. Main thread only.
 */
@Command(name = "large-state-benchmark", mixinStandardHelpOptions = true,
        description = "Checkpoint sizes (full vs incremental) and restore time of a large keyed state; JSON lines on stdout.")
public final class LargeStateBenchmark implements Callable<Integer> {
    private static final Logger LOG = LoggerFactory.getLogger(LargeStateBenchmark.class);
    private static final long CANCEL_TIMEOUT_S = 120;
    private static final String FIRST_ROW_SINK = "first-row-sink";

    @CommandLine.Spec
    private CommandLine.Model.CommandSpec spec;

    @Option(names = "--job", paramLabel = "JOB", defaultValue = "hourly", description = "hourly or 10m-keys (default: ${DEFAULT-VALUE})")
    private String jobName;

    @Option(names = "--backend", paramLabel = "B", defaultValue = "rocksdb",
            description = "rocksdb (incremental checkpoints) or hashmap (heap, full checkpoints) (default: ${DEFAULT-VALUE})")
    private String backend;

    @Option(names = "--checkpoints", paramLabel = "N", defaultValue = "5",
            description = "Completed checkpoints to wait for in phase 1 (after the fill, for 10m-keys) before cancelling (default: ${DEFAULT-VALUE})")
    private int checkpoints;

    @Option(names = "--checkpoint-interval-ms", paramLabel = "MS", description = "Checkpoint period (default: 2000 for hourly, 5000 for 10m-keys)")
    private Long checkpointIntervalMs;

    @Option(names = "--file", paramLabel = "PATH", defaultValue = "../shared/data/flights-3m.jsonl.gz",
            description = "hourly: the JSON-lines flights (.gz is decompressed into the checkpoint directory first) (default: ${DEFAULT-VALUE})")
    private Path file;

    @Option(names = "--release-records", paramLabel = "N", defaultValue = "1500000",
            description = "hourly: records the source reads in phase 1 (default: ${DEFAULT-VALUE})")
    private long releaseRecords;

    @Option(names = "--keys", paramLabel = "N", defaultValue = "10000000", description = "10m-keys: distinct keys (default: ${DEFAULT-VALUE})")
    private int keys;

    @Option(names = "--fill-timeout-s", paramLabel = "S", defaultValue = "600",
            description = "10m-keys: phase 1 waits at most this long for every key to have state (default: ${DEFAULT-VALUE})")
    private int fillTimeoutS;

    @Option(names = "--restore-timeout-s", paramLabel = "S", defaultValue = "600",
            description = "Phase 2 waits at most this long for all keys to be served (default: ${DEFAULT-VALUE})")
    private int restoreTimeoutS;

    @Option(names = "--set", paramLabel = "KEY=VALUE", description = "Job configuration override (docs/configuration.md), repeatable")
    private Map<String, String> overrides = new LinkedHashMap<>();

    private final PrintStream stdout;
    private final AtomicLong hourlyRows = new AtomicLong();
    private final AtomicLong hourlyFirstRowNanos = new AtomicLong();

    /** @param stdout where JSON lines go */
    public LargeStateBenchmark(PrintStream stdout) {
        this.stdout = stdout;
    }

    /** Runs the command line; exits the JVM with the status described on the class. */
    public static void main(String[] args) {
        System.exit(new CommandLine(new LargeStateBenchmark(System.out)).execute(args));
    }

    @Override
    public Integer call() throws Exception {
        boolean hourly = jobName.equals("hourly");
        if (!hourly && !jobName.equals("10m-keys")) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--job must be hourly or 10m-keys, got '" + jobName + "'");
        }
        if (!backend.equals("rocksdb") && !backend.equals("hashmap")) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--backend must be rocksdb or hashmap, got '" + backend + "'");
        }
        if (checkpoints < 1 || keys < 1 || releaseRecords < 1 || fillTimeoutS < 1 || restoreTimeoutS < 1) {
            throw new CommandLine.ParameterException(spec.commandLine(),
                    "--checkpoints, --keys, --release-records and the timeouts must be >= 1");
        }
        if (hourly && !Files.isReadable(file)) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--file " + file.toAbsolutePath()
                    + " is not a readable file; give the flights (JSON lines, e.g. ../shared/data/flights-3m.jsonl.gz)");
        }
        Map<String, String> backendConfig = backend.equals("rocksdb")
                ? Map.of("state.backend.type", "rocksdb", "state.backend.incremental", "true")
                : Map.of("state.backend.type", "hashmap");
        long interval = checkpointIntervalMs != null ? checkpointIntervalMs : hourly ? 2000 : 5000;
        Path dir = Files.createTempDirectory("weir-large-state-");
        try {
            return run(hourly, backendConfig, interval, dir);
        } finally {
            BenchmarkFiles.deleteRecursively(dir);
        }
    }

    private int run(boolean hourly, Map<String, String> backendConfig, long interval, Path dir) throws Exception {
        JsonProvider json = JsonProvider.provider();
        JsonLines out = new JsonLines(json, stdout);
        FirstCountSinkFactory keySink = new FirstCountSinkFactory(keys);
        Path releaseFile = dir.resolve("release");
        JsonObject jobFile;
        if (hourly) {
            Path flights = decompressed(file, dir);
            Files.writeString(releaseFile, Long.toString(releaseRecords));
            jobFile = HourlyJob.build(json, flights, releaseFile, dir, interval, backendConfig, FIRST_ROW_SINK);
        } else {
            Variant base = Variant.named("rocksdb-10m-keys").orElseThrow();
            Variant v = new Variant(base.name(), base.description(), base.rate(), base.recordSizeBytes(), keys,
                    0, interval, base.defaultDurationS(), backendConfig);
            jobFile = BenchmarkJob.build(json, v, dir, FirstCountSinkFactory.TYPE);
        }
        try (LocalEngine engine = LocalEngine.fromServiceLoader(LargeStateBenchmark.class.getClassLoader(), Configuration.empty())) {
            if (!(engine.services().plugins() instanceof MapPluginRegistry registry)) {
                throw new IllegalStateException("the engine's plugin registry is not a MapPluginRegistry; cannot register the benchmark sinks");
            }
            registry.addSink(keySink);
            registry.addSink(new RowObserverSinkFactory(FIRST_ROW_SINK, () -> () -> {
                if (hourlyRows.getAndIncrement() == 0) {
                    hourlyFirstRowNanos.compareAndSet(0, System.nanoTime());
                }
            }));
            JobGraph job;
            try {
                job = new JobSpecParser(registry, json).parse(jobFile.toString(), dir, overrides);
            } catch (InvalidJobException e) {
                LOG.error("Invalid large-state job {}: {}", jobName, e.getMessage());
                return 2;
            }

            // Phase 1: fill, then N checkpoints, then cancel.
            long start = System.nanoTime();
            String reported = hourly ? "hourly" : BenchmarkJob.COUNTER_ID;
            LongSupplier rowsSeen = hourly ? hourlyRows::get : keySink::rows;
            PhaseListener fill = new PhaseListener(new CheckpointRecorder(json, out, reported, rowsSeen, start));
            JobHandle first = engine.submit(job, fill);
            long filledNanos = 0;
            if (!hourly) {
                if (keySink.awaitAllKeys(fillTimeoutS, TimeUnit.SECONDS)) {
                    filledNanos = System.nanoTime();
                } else {
                    LOG.warn("{} of {} keys had state after {} s; checkpointing what there is", keySink.keysSeen(), keys, fillTimeoutS);
                }
                drainCheckpoints(fill);
            }
            for (int i = 0; i < checkpoints; i++) {
                if (!fill.awaitCheckpoint(TimeUnit.SECONDS.toMillis(fillTimeoutS))) {
                    LOG.error("Checkpoint {} of {} did not complete within {} s", i + 1, checkpoints, fillTimeoutS);
                    first.cancel();
                    return 1;
                }
            }
            int keysReached = keySink.keysSeen();
            long rowsBeforeCancel = rowsSeen.getAsLong();
            first.cancel();
            JobResult firstResult = first.result().get(CANCEL_TIMEOUT_S, TimeUnit.SECONDS);
            List<CompletedCheckpointStats> completed = fill.recorder().completed();
            CompletedCheckpointStats latest = completed.get(completed.size() - 1);
            out.write(fillLine(json, completed, latest, start, filledNanos, hourly ? -1 : keysReached, rowsBeforeCancel,
                    firstResult));

            // Phase 2: the same job again restores from the latest retained checkpoint.
            keySink.reset();
            hourlyRows.set(0);
            hourlyFirstRowNanos.set(0);
            if (hourly) {
                Files.delete(releaseFile);
            }
            long submitNanos = System.nanoTime();
            JobGraph again = new JobSpecParser(registry, json).parse(jobFile.toString(), dir, overrides);
            PhaseListener restore = new PhaseListener(new CheckpointRecorder(json, out, reported, rowsSeen, submitNanos));
            JobHandle second = engine.submit(again, restore);
            long servedNanos = 0;
            JobResult secondResult = null;
            if (hourly) {
                try {
                    secondResult = second.result().get(restoreTimeoutS, TimeUnit.SECONDS);
                    servedNanos = System.nanoTime();
                } catch (TimeoutException e) {
                    LOG.error("The restored hourly job did not finish within {} s", restoreTimeoutS);
                }
            } else if (keySink.awaitAllKeys(restoreTimeoutS, TimeUnit.SECONDS)) {
                servedNanos = System.nanoTime();
            } else {
                LOG.error("{} of {} keys served within {} s of the restore", keySink.keysSeen(), keys, restoreTimeoutS);
            }
            if (secondResult == null) {
                if (!second.status().isTerminal()) {
                    second.cancel();
                }
                secondResult = second.result().get(CANCEL_TIMEOUT_S, TimeUnit.SECONDS);
            }
            long restoredCounts = 0;
            if (!hourly) {
                for (int k = 0; k < keys; k++) {
                    if (keySink.firstCount(k) > 1) {
                        restoredCounts++;
                    }
                }
            }
            long firstRow = hourly ? hourlyFirstRowNanos.get() : keySink.firstRowNanos();
            JsonObjectBuilder line = json.createObjectBuilder()
                    .add("type", "restore")
                    .add("job", jobName)
                    .add("backend", backend)
                    .add("restored_checkpoint_id", restore.restoredCheckpointId())
                    .add("latest_checkpoint_id", latest.checkpointId())
                    .add("restored_state_size_bytes", stateSize(latest));
            addMs(line, "restore_point_ms", submitNanos, restore.restoredNanos());
            addMs(line, "running_ms", submitNanos, restore.runningNanos());
            addMs(line, "first_row_ms", submitNanos, firstRow);
            addMs(line, hourly ? "finished_ms" : "all_keys_served_ms", submitNanos, servedNanos);
            if (!hourly) {
                line.add("keys_served", keySink.keysSeen()).add("keys_with_restored_count", restoredCounts);
            }
            line.add("rows_after_restore", rowsSeen.getAsLong())
                    .add("final_status", secondResult.status().name())
                    .add("load_average_1m", loadAverage());
            out.write(line.build());
            boolean ok = restore.restoredCheckpointId() == latest.checkpointId() && servedNanos != 0
                    && (hourly || restoredCounts > 0);
            return ok ? 0 : 1;
        }
    }

    private JsonObject fillLine(JsonProvider json, List<CompletedCheckpointStats> completed, CompletedCheckpointStats latest,
            long start, long filledNanos, int keysReached, long rows, JobResult result) {
        long uploaded = completed.stream().mapToLong(CompletedCheckpointStats::checkpointedSizeBytes).sum();
        JsonObjectBuilder b = json.createObjectBuilder()
                .add("type", "fill")
                .add("job", jobName)
                .add("backend", backend)
                .add("checkpoints_completed", completed.size())
                .add("first_checkpointed_size_bytes", completed.get(0).checkpointedSizeBytes())
                .add("latest_state_size_bytes", stateSize(latest))
                .add("latest_checkpointed_size_bytes", latest.checkpointedSizeBytes())
                .add("checkpointed_size_bytes_total", uploaded)
                .add("latest_end_to_end_duration_ms", latest.endToEndDurationMs());
        addMs(b, "keys_filled_ms", start, filledNanos);
        if (keysReached >= 0) {
            b.add("keys_reached", keysReached);
        }
        return b.add("rows_counted", rows)
                .add("elapsed_ms", TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start))
                .add("final_status", result.status().name())
                .add("load_average_1m", loadAverage())
                .build();
    }

    /** The full state of a checkpoint, as {@link CheckpointRecorder} computes {@code state_size_bytes}. */
    private static long stateSize(CompletedCheckpointStats stats) {
        return stats.checkpointedSizeBytes() + stats.subtasks().values().stream()
                .mapToLong(m -> m.stateSizeBytes() - m.checkpointedSizeBytes()).sum();
    }

    private static void addMs(JsonObjectBuilder b, String name, long from, long to) {
        if (to == 0) {
            b.add(name, JsonValue.NULL);
        } else {
            b.add(name, TimeUnit.NANOSECONDS.toMillis(to - from));
        }
    }

    private static double loadAverage() {
        return Math.round(ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage() * 100) / 100.0;
    }

    /** Forgets the checkpoints completed so far, so that the next waits count only later ones. */
    private static void drainCheckpoints(PhaseListener listener) throws InterruptedException {
        while (listener.awaitCheckpoint(0)) {
            // consumed
        }
    }

    /** @return {@code source} itself, or (a {@code .gz}) its decompressed copy in {@code dir} */
    private static Path decompressed(Path source, Path dir) throws IOException {
        if (!source.getFileName().toString().endsWith(".gz")) {
            return source.toAbsolutePath();
        }
        Path target = dir.resolve("flights.jsonl");
        try (InputStream in = new GZIPInputStream(Files.newInputStream(source), 1 << 16)) {
            Files.copy(in, target, StandardCopyOption.REPLACE_EXISTING);
        }
        return target;
    }

}
