package io.weir.benchmarks;

import io.weir.core.config.Configuration;
import io.weir.core.coordination.CompletedCheckpointStats;
import io.weir.core.engine.JobHandle;
import io.weir.core.engine.JobResult;
import io.weir.core.engine.JobStatus;
import io.weir.core.ha.CheckpointRecoveryFactory;
import io.weir.core.job.InvalidJobException;
import io.weir.core.job.JobGraph;
import io.weir.core.job.JobSpecParser;
import io.weir.core.plugin.MapPluginRegistry;
import io.weir.core.plugin.PluginRegistry;
import io.weir.benchmarks.ha.InProcessCluster;
import io.weir.benchmarks.ha.TimedRecoveryFactory;
import io.weir.ha.hazelcast.checkpoint.HazelcastCheckpointRecoveryFactory;
import io.weir.ha.hazelcast.member.MemberConfigs;
import io.weir.runtime.engine.LocalEngine;
import jakarta.json.JsonArrayBuilder;
import jakarta.json.JsonObject;
import jakarta.json.JsonObjectBuilder;
import jakarta.json.JsonValue;
import jakarta.json.spi.JsonProvider;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.io.IOException;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalDouble;
import java.util.ServiceLoader;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.LongFunction;
import java.util.stream.Stream;

/**
 * The checkpoint benchmark of PROTOCOL.md §5 on the embedded engine ({@link LocalEngine}, wired
 * through ServiceLoader): runs one {@link Variant} for a fixed time, then cancels it.
 *
 * <p>Output on stdout, one JSON object per line: a {@code checkpoint} line per completed checkpoint
 * (see {@link CheckpointRecorder}), then one {@code summary} line: median and max end-to-end
 * duration over checkpoints 2..n ({@link DurationSummary}), records/s counted by the sink between
 * the warm-up mark (10 s) and the end, checkpoints completed and failed, and the time of the two HA writes on each
 * checkpoint's path (id draw, store add; {@link TimedRecoveryFactory}) with the standalone or, with
 * {@code --high-availability=hazelcast}, the Hazelcast counter and store ({@link InProcessCluster}). Logs go to stderr.
 *
 * <p>Exit status: 0 when the job ran the whole duration and was cancelled; 1 when it failed or
 * ended early; 2 on a usage or job-file error. Main thread only.
 */
@Command(name = "checkpoint-benchmark", mixinStandardHelpOptions = true,
        description = "Runs a checkpoint benchmark variant (PROTOCOL.md §5) and prints JSON lines on stdout.")
public final class CheckpointBenchmark implements java.util.concurrent.Callable<Integer> {
    private static final Logger LOG = LoggerFactory.getLogger(CheckpointBenchmark.class);
    private static final long CANCEL_TIMEOUT_S = 30;
    /** {@code --high-availability} values (Flink's {@code high-availability.type}: NONE is our standalone). */
    static final List<String> HA_TYPES = List.of("standalone", "hazelcast");
    /** The fencing epoch the benchmark's single owner runs under (the job store and its leases are not involved). */
    static final long OWNER_EPOCH = 1;

    @CommandLine.Spec
    private CommandLine.Model.CommandSpec spec;

    @Parameters(index = "0", arity = "0..1", paramLabel = "VARIANT", description = "nobp, bp, throughput-16, throughput-100k (see --list)")
    private String variantName;

    @Option(names = "--duration-s", paramLabel = "N", description = "Seconds to run the job (default: the variant's)")
    private Integer durationS;

    @Option(names = "--warmup-s", paramLabel = "N", defaultValue = "10",
            description = "Records/s are measured from this mark to the end (default: ${DEFAULT-VALUE}; at most half the duration)")
    private int warmupS;

    @Option(names = "--checkpoint-dir", paramLabel = "DIR",
            description = "Checkpoint directory (default: a temporary directory deleted afterwards); its job subdirectory must not hold checkpoints")
    private Path checkpointDir;

    @Option(names = "--set", paramLabel = "KEY=VALUE", description = "Job configuration override (docs/configuration.md), repeatable")
    private Map<String, String> overrides = new LinkedHashMap<>();

    @Option(names = "--report-vertex", paramLabel = "ID", defaultValue = BenchmarkJob.COUNTER_ID,
            description = "Chain-head operator whose subtasks each checkpoint line lists: source or counter (default: ${DEFAULT-VALUE})")
    private String reportVertex;

    @Option(names = "--high-availability", paramLabel = "TYPE", defaultValue = "standalone",
            description = "Checkpoint ID counter and completed store: standalone (in memory) or hazelcast (in-process members,"
                    + " the store's maps with 2 synchronous backups; docs/ha.md) (default: ${DEFAULT-VALUE})")
    private String highAvailability;

    @Option(names = "--ha-members", paramLabel = "N", defaultValue = "3",
            description = "Hazelcast members started in this JVM with --high-availability=hazelcast, 1..7 (default: ${DEFAULT-VALUE},"
                    + " so that each of the 2 backups is on another member, as in a 3-node cluster)")
    private int haMembers;

    @Option(names = "--list", description = "List the variants and exit")
    private boolean list;

    private final PrintStream stdout;

    /** @param stdout where JSON lines (and {@code --list}) go */
    public CheckpointBenchmark(PrintStream stdout) {
        this.stdout = stdout;
    }

    /** Runs the command line; exits the JVM with the status described on the class. */
    public static void main(String[] args) {
        System.exit(new CommandLine(new CheckpointBenchmark(System.out)).execute(args));
    }

    @Override
    public Integer call() throws Exception {
        if (list) {
            for (Variant v : Variant.ALL) {
                stdout.printf("%-16s %s (default %d s)%n", v.name(), v.description(), v.defaultDurationS());
            }
            return 0;
        }
        if (variantName == null) {
            throw new CommandLine.ParameterException(spec.commandLine(), "Missing VARIANT; one of "
                    + Variant.ALL.stream().map(Variant::name).toList() + " (see --list)");
        }
        Variant variant = Variant.named(variantName).orElseThrow(() -> new CommandLine.ParameterException(
                spec.commandLine(), "Unknown variant '" + variantName + "'; one of "
                + Variant.ALL.stream().map(Variant::name).toList()));
        int duration = durationS == null ? variant.defaultDurationS() : durationS;
        if (duration < 1 || warmupS < 0) {
            throw new CommandLine.ParameterException(spec.commandLine(),
                    "--duration-s must be >= 1 and --warmup-s >= 0, got " + duration + " and " + warmupS);
        }
        int warmup = Math.min(warmupS, duration / 2);
        if (!HA_TYPES.contains(highAvailability)) {
            throw new CommandLine.ParameterException(spec.commandLine(), "Unknown --high-availability '" + highAvailability
                    + "'; one of " + HA_TYPES + " (standalone: in-memory counter and store; hazelcast: in-process members)");
        }
        if (haMembers < 1 || haMembers > 7) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--ha-members must be 1..7, got " + haMembers);
        }

        boolean temporary = checkpointDir == null;
        Path dir = temporary ? Files.createTempDirectory("weir-benchmark-") : checkpointDir;
        Path jobDir = dir.resolve(BenchmarkJob.jobName(variant));
        if (!temporary && Files.isDirectory(jobDir) && !isEmpty(jobDir)) {
            LOG.error("{} holds checkpoints of an earlier run; the job would restore from them. Remove it or pick another --checkpoint-dir", jobDir);
            return 2;
        }
        try {
            return run(variant, duration, warmup, dir);
        } finally {
            if (temporary) {
                BenchmarkFiles.deleteRecursively(dir);
            }
        }
    }

    private int run(Variant variant, int durationS, int warmupS, Path dir) throws Exception {
        JsonProvider json = JsonProvider.provider();
        JsonLines out = new JsonLines(json, stdout);
        RowCounter rows = new RowCounter();
        ClassLoader loader = CheckpointBenchmark.class.getClassLoader();
        boolean hazelcast = highAvailability.equals("hazelcast");
        // the cluster is closed after the engine: a job being cancelled may still write its store
        try (InProcessCluster cluster = hazelcast ? new InProcessCluster(haMembers, loader) : null) {
            CheckpointRecoveryFactory recovery = hazelcast
                    ? new HazelcastCheckpointRecoveryFactory(cluster::member, job -> OWNER_EPOCH)
                    : standaloneRecovery(loader);
            TimedRecoveryFactory timed = new TimedRecoveryFactory(recovery);
            JsonObjectBuilder ha = json.createObjectBuilder().add("type", recovery.type());
            if (cluster != null) {
                ha.add("members", haMembers).add("sync_backups", Math.min(MemberConfigs.BACKUPS, haMembers - 1))
                        .add("cluster_formed_ms", cluster.formedInMs())
                        .add("store_entry_primary_on_engine_member", cluster.ownsStoreEntryOf(BenchmarkJob.jobName(variant)));
            }
            return runJob(variant, durationS, warmupS, dir, json, out, rows, loader, timed, ha);
        }
    }

    /** @return the ServiceLoader's {@code standalone} factory, the embedded default */
    private static CheckpointRecoveryFactory standaloneRecovery(ClassLoader loader) {
        for (CheckpointRecoveryFactory f : ServiceLoader.load(CheckpointRecoveryFactory.class, loader)) {
            if (f.type().equals("standalone")) {
                return f;
            }
        }
        throw new IllegalStateException("no standalone " + CheckpointRecoveryFactory.class.getName() + " on the class path");
    }

    private int runJob(Variant variant, int durationS, int warmupS, Path dir, JsonProvider json, JsonLines out, RowCounter rows,
            ClassLoader loader, TimedRecoveryFactory recovery, JsonObjectBuilder ha) throws Exception {
        try (LocalEngine engine = LocalEngine.fromServiceLoader(loader, Configuration.empty(), recovery)) {
            PluginRegistry plugins = engine.services().plugins();
            if (!(plugins instanceof MapPluginRegistry registry)) {
                throw new IllegalStateException("the engine's plugin registry is a " + plugins.getClass().getName()
                        + ", not a MapPluginRegistry; cannot register " + CountingSinkFactory.TYPE);
            }
            registry.addSink(new CountingSinkFactory(rows));

            JsonObject jobFile = BenchmarkJob.build(json, variant, dir);
            JobGraph job;
            try {
                job = new JobSpecParser(registry, json).parse(jobFile.toString(), dir, overrides);
            } catch (InvalidJobException e) {
                LOG.error("Invalid benchmark job {}: {}", BenchmarkJob.jobName(variant), e.getMessage());
                return 2;
            }
            LOG.info("Running {} for {} s (warm-up {} s), checkpoints in {}, overrides {}, high availability {}", variant.name(),
                    durationS, warmupS, dir, overrides, recovery.type());

            long start = System.nanoTime();
            CheckpointRecorder recorder = new CheckpointRecorder(json, out, reportVertex, rows::sum, start);
            JobHandle handle = engine.submit(job, recorder);

            CountSample atWarmup = awaitMark(handle, rows, start, warmupS);
            CountSample atEnd = atWarmup == null ? null : awaitMark(handle, rows, start, durationS);
            boolean endedEarly = atEnd == null;
            if (endedEarly) {
                LOG.error("Job {} ended before the {} s mark", job.name(), durationS);
            }
            cancelUnlessEnded(handle);
            JobResult result;
            try {
                result = handle.result().get(CANCEL_TIMEOUT_S, TimeUnit.SECONDS);
            } catch (TimeoutException e) {
                LOG.error("Job {} did not stop within {} s of cancel (status {})", job.name(), CANCEL_TIMEOUT_S, handle.status());
                return 1;
            }
            if (result.failure() != null) {
                LOG.error("Job {} ended {}", job.name(), result.status(), result.failure());
            }

            List<CompletedCheckpointStats> completed = recorder.completed();
            DurationSummary durations = DurationSummary.afterFirst(completed);
            JsonObjectBuilder durationJson = json.createObjectBuilder().add("counted", durations.counted());
            if (durations.median().isPresent()) {
                durationJson.add("median", durations.median().getAsDouble()).add("max", durations.max().getAsLong());
            } else {
                durationJson.add("median", JsonValue.NULL).add("max", JsonValue.NULL);
            }
            DurationSummary persisted = DurationSummary.afterFirst(completed, CompletedCheckpointStats::persistedDataBytes);
            JsonObjectBuilder persistedJson = json.createObjectBuilder().add("counted", persisted.counted());
            if (persisted.median().isPresent()) {
                persistedJson.add("median", persisted.median().getAsDouble()).add("max", persisted.max().getAsLong());
            } else {
                persistedJson.add("median", JsonValue.NULL).add("max", JsonValue.NULL);
            }
            JsonObjectBuilder summary = json.createObjectBuilder()
                    .add("type", "summary")
                    .add("variant", variant.name())
                    .add("duration_ms", durationJson)
                    .add("persisted_data_bytes", persistedJson)
                    .add("high_availability", ha)
                    .add("id_draw_ms", afterFirst(json, completed, recovery::idDrawMs))
                    .add("store_add_ms", afterFirst(json, completed, recovery::storeAddMs))
                    .add("duration_with_ha_writes_ms", afterFirst(json, completed, id -> withHaWrites(completed, recovery, id)));
            if (endedEarly) {
                summary.add("records_per_s_after_warmup", JsonValue.NULL);
            } else {
                summary.add("records_per_s_after_warmup", Math.round(atWarmup.recordsPerSecondUntil(atEnd)));
            }
            summary.add("checkpoints_completed", completed.size())
                    .add("checkpoints_failed", recorder.failed())
                    .add("run_s", durationS)
                    .add("warmup_s", warmupS)
                    .add("rows_counted", rows.sum())
                    .add("restarts", result.restarts())
                    .add("final_status", result.status().name())
                    .add("load_average_1m", Math.round(ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage() * 100) / 100.0)
                    .add("garbage_collectors", garbageCollectors(json));
            out.write(summary.build());
            return !endedEarly && result.status() == JobStatus.CANCELED ? 0 : 1;
        }
    }

    /**
     * The JVM's collectors, e.g. ["PS MarkSweep", "PS Scavenge"] for the parallel collector (run.sh's default) or
     * ["G1 Young Generation", "G1 Old Generation"] for G1 (the JVM's default, which {@code bin/weir} and Flink's
     * harness run): records/s depend on it (benchmarks/README.md, "Collectors"), so every summary says which it was.
     */
    private static JsonArrayBuilder garbageCollectors(JsonProvider json) {
        JsonArrayBuilder names = json.createArrayBuilder();
        ManagementFactory.getGarbageCollectorMXBeans().forEach(gc -> names.add(gc.getName()));
        return names;
    }

    /** End-to-end duration plus the id draw and the store add, which the end-to-end duration does not contain. */
    private static OptionalDouble withHaWrites(List<CompletedCheckpointStats> completed, TimedRecoveryFactory recovery, long id) {
        OptionalDouble draw = recovery.idDrawMs(id);
        OptionalDouble add = recovery.storeAddMs(id);
        return draw.isPresent() && add.isPresent()
                ? completed.stream().filter(s -> s.checkpointId() == id).mapToDouble(s -> s.endToEndDurationMs() + draw.getAsDouble()
                        + add.getAsDouble()).findFirst()
                : OptionalDouble.empty();
    }

    /**
     * @param metric a measure per checkpoint id, empty when not measured
     * @return median, min, max and spread of {@code metric} over checkpoints 2..n (rounded to 0.01 ms; null values when
     *         none was measured)
     */
    private static JsonObjectBuilder afterFirst(JsonProvider json, List<CompletedCheckpointStats> completed,
            LongFunction<OptionalDouble> metric) {
        List<Double> values = completed.stream().map(CompletedCheckpointStats::checkpointId).sorted().skip(1)
                .map(metric::apply).filter(OptionalDouble::isPresent).map(OptionalDouble::getAsDouble).toList();
        JsonObjectBuilder b = json.createObjectBuilder().add("counted", values.size());
        if (values.isEmpty()) {
            return b.add("median", JsonValue.NULL).add("min", JsonValue.NULL).add("max", JsonValue.NULL);
        }
        Spread s = Spread.of(values);
        return b.add("median", round2(s.median())).add("min", round2(s.min())).add("max", round2(s.max()))
                .add("spread_percent", s.spreadPercent());
    }

    private static double round2(double v) {
        return Math.round(v * 100) / 100.0;
    }

    /**
     * Waits until {@code markS} seconds after {@code start} unless the job ends first.
     *
     * @return the row counter at the mark, or null if the job reached a terminal status before it
     */
    private static CountSample awaitMark(JobHandle handle, RowCounter rows, long start, int markS) throws InterruptedException {
        long deadline = start + TimeUnit.SECONDS.toNanos(markS);
        long remaining = deadline - System.nanoTime();
        if (remaining > 0) {
            try {
                handle.result().get(remaining, TimeUnit.NANOSECONDS);
                return null;
            } catch (TimeoutException e) {
                // the normal case: the job is still running at the mark
            } catch (ExecutionException e) {
                throw new IllegalStateException("job " + handle.jobName() + " result completed exceptionally", e);
            }
        }
        return handle.status().isTerminal() ? null : new CountSample(rows.sum(), System.nanoTime());
    }

    /**
     * Cancels the job if it is still running. A job that already reached a terminal status is left
     * alone: its job master may have shut down its executor, and cancel would then be rejected.
     */
    private static void cancelUnlessEnded(JobHandle handle) {
        if (handle.status().isTerminal()) {
            return;
        }
        try {
            handle.cancel();
        } catch (RejectedExecutionException e) {
            LOG.warn("Cancel of job {} was rejected (status {}); it ended meanwhile", handle.jobName(), handle.status());
        }
    }

    private static boolean isEmpty(Path dir) throws IOException {
        try (Stream<Path> entries = Files.list(dir)) {
            return entries.findAny().isEmpty();
        }
    }

}
