package io.weir.benchmarks.recovery;

import io.weir.benchmarks.BenchmarkJob;
import io.weir.benchmarks.JsonLines;
import io.weir.benchmarks.Spread;
import io.weir.benchmarks.Variant;
import io.weir.core.config.Configuration;
import io.weir.core.engine.JobHandle;
import io.weir.core.engine.JobResult;
import io.weir.core.engine.JobStatus;
import io.weir.core.job.JobGraph;
import io.weir.core.job.JobSpecParser;
import io.weir.core.plugin.MapPluginRegistry;
import io.weir.core.plugin.PluginRegistry;
import io.weir.runtime.engine.LocalEngine;
import jakarta.json.JsonObjectBuilder;
import jakarta.json.spi.JsonProvider;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.IOException;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * Recovery time of a job with small state on the embedded engine (issue 13: from a task failure to records
 * flowing again, restart delay 0, target ≤ 100 ms median).
 *
 * <p>The job is the checkpoint benchmark's ({@link BenchmarkJob}: datagen p=2 → hash → keyed-aggregate count p=2
 * → sink p=2 chained), with the {@link FailureProbeSinkFactory failure-probe} sink, {@code --rate} records/s,
 * {@code --keys} keys and a checkpoint every {@code --checkpoint-interval-ms}. After {@code --warmup-s}, each round
 * waits for a checkpoint completed since the last recovery (so every restore reads one), then makes a sink subtask
 * throw, and times the recovery with {@link RecoveryClock}: {@code cancel_ms} (failure → the failed attempt's
 * tasks cancelled), {@code restore_ms} (→ restore point chosen and read), {@code deploy_ms} (→ every new task
 * RUNNING, state restored), {@code first_record_ms} (→ first row at a sink), and {@code total_ms}.
 *
 * <p>stdout: JSON lines, a {@code recovery} line per round, then a {@code summary} line with median, min, max and
 * spread of each part over the rounds and the 1-minute load average; logs on stderr. Exit status 0 = every round
 * recovered, 1 = a round did not recover within 60 s or the job ended, 2 = usage. Main thread only.
 */
@Command(name = "recovery-benchmark", mixinStandardHelpOptions = true,
        description = "Injects task failures into a running job and prints the recovery time and its parts as JSON lines.")
public final class RecoveryBenchmark implements Callable<Integer> {
    private static final Logger LOG = LoggerFactory.getLogger(RecoveryBenchmark.class);
    private static final long ROUND_TIMEOUT_S = 60;

    @Option(names = "--rounds", defaultValue = "20", description = "Failures to inject (default: ${DEFAULT-VALUE})")
    private int rounds;

    @Option(names = "--rate", defaultValue = "20000", description = "Source records/s over both subtasks (default: ${DEFAULT-VALUE})")
    private long rate;

    @Option(names = "--keys", defaultValue = "16", description = "Distinct keys, the aggregate's state (default: ${DEFAULT-VALUE})")
    private long keys;

    @Option(names = "--checkpoint-interval-ms", defaultValue = "100", description = "Checkpoint period (default: ${DEFAULT-VALUE})")
    private long intervalMs;

    @Option(names = "--warmup-s", defaultValue = "3", description = "Seconds before the first failure (default: ${DEFAULT-VALUE})")
    private int warmupS;

    @Option(names = "--set", paramLabel = "KEY=VALUE", description = "Job configuration override, repeatable")
    private Map<String, String> overrides = new LinkedHashMap<>();

    @CommandLine.Spec
    private CommandLine.Model.CommandSpec spec;

    private final PrintStream stdout;

    /** @param stdout where the JSON lines go */
    public RecoveryBenchmark(PrintStream stdout) {
        this.stdout = stdout;
    }

    /** Runs the command line; exits the JVM with the status described on the class. */
    public static void main(String[] args) {
        System.exit(new CommandLine(new RecoveryBenchmark(System.out)).execute(args));
    }

    @Override
    public Integer call() throws Exception {
        if (rounds < 1 || rate < 1 || keys < 1 || intervalMs < 1 || warmupS < 0) {
            throw new CommandLine.ParameterException(spec.commandLine(),
                    "--rounds, --rate, --keys and --checkpoint-interval-ms must be >= 1 and --warmup-s >= 0");
        }
        Path dir = Files.createTempDirectory("weir-recovery-");
        try {
            return run(dir);
        } finally {
            try (Stream<Path> paths = Files.walk(dir)) {
                for (Path p : (Iterable<Path>) paths.sorted(Comparator.reverseOrder())::iterator) {
                    Files.deleteIfExists(p);
                }
            } catch (IOException e) {
                LOG.warn("Could not delete {}: {}", dir, e.toString());
            }
        }
    }

    private int run(Path dir) throws Exception {
        JsonProvider json = JsonProvider.provider();
        JsonLines out = new JsonLines(json, stdout);
        RecoveryClock clock = new RecoveryClock();
        Variant variant = new Variant("recovery", "task failures injected into a small-state job", rate, 100, keys, 0,
                intervalMs, warmupS + rounds, Map.of(
                        "restart-strategy.fixed-delay.attempts", String.valueOf(rounds + 1),
                        "restart-strategy.fixed-delay.delay", "0 ms"));
        try (LocalEngine engine = LocalEngine.fromServiceLoader(RecoveryBenchmark.class.getClassLoader(), Configuration.empty())) {
            PluginRegistry plugins = engine.services().plugins();
            if (!(plugins instanceof MapPluginRegistry registry)) {
                throw new IllegalStateException("the engine's plugin registry is a " + plugins.getClass().getName()
                        + ", not a MapPluginRegistry; cannot register " + FailureProbeSinkFactory.TYPE);
            }
            registry.addSink(new FailureProbeSinkFactory(clock));
            JobGraph job = new JobSpecParser(registry, json).parse(
                    BenchmarkJob.build(json, variant, dir, FailureProbeSinkFactory.TYPE).toString(), dir, overrides);
            JobHandle handle = engine.submit(job, clock);
            Map<String, List<Double>> parts = new LinkedHashMap<>();
            try {
                TimeUnit.SECONDS.sleep(warmupS); // the JIT's warm-up, not a wait for a condition
                for (int i = 1; i <= rounds; i++) {
                    long checkpointsBefore = clock.completedCheckpoints();
                    awaitCheckpointAfter(clock, checkpointsBefore, handle);
                    RecoveryClock.Round round = clock.arm();
                    round.recovered.get(ROUND_TIMEOUT_S, TimeUnit.SECONDS);
                    Map<String, Double> line = new LinkedHashMap<>();
                    line.put("cancel_ms", ms(round.cancelled - round.failed));
                    line.put("restore_ms", ms(round.restored - round.cancelled));
                    line.put("deploy_ms", ms(round.running - round.restored));
                    line.put("first_record_ms", ms(round.firstRecord - round.running));
                    line.put("total_ms", ms(round.firstRecord - round.failed));
                    JsonObjectBuilder o = json.createObjectBuilder().add("type", "recovery").add("round", i);
                    line.forEach((k, v) -> {
                        o.add(k, v);
                        parts.computeIfAbsent(k, x -> new ArrayList<>()).add(v);
                    });
                    out.write(o.build());
                }
            } catch (java.util.concurrent.TimeoutException e) {
                LOG.error("A failure did not recover within {} s (status {})", ROUND_TIMEOUT_S, handle.status());
                return 1;
            } catch (java.util.concurrent.ExecutionException e) {
                LOG.error("The job ended during a recovery", e.getCause());
                return 1;
            } finally {
                if (!handle.status().isTerminal()) {
                    handle.cancel();
                }
            }
            JobResult result = handle.result().get(30, TimeUnit.SECONDS);
            JsonObjectBuilder summary = json.createObjectBuilder().add("type", "summary").add("variant", "recovery")
                    .add("rounds", rounds).add("rate", rate).add("keys", keys).add("checkpoint_interval_ms", intervalMs);
            parts.forEach((k, values) -> {
                Spread s = Spread.of(values);
                summary.add(k, json.createObjectBuilder().add("median", round2(s.median())).add("min", s.min()).add("max", s.max())
                        .add("spread_percent", s.spreadPercent()));
            });
            summary.add("restarts", result.restarts()).add("final_status", result.status().name())
                    .add("load_average_1m", Math.round(ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage() * 100) / 100.0);
            out.write(summary.build());
            return result.status() == JobStatus.CANCELED ? 0 : 1;
        }
    }

    /** Waits until a checkpoint completed after {@code before} checkpoints, so the next restore reads a fresh one. */
    private static void awaitCheckpointAfter(RecoveryClock clock, long before, JobHandle handle)
            throws InterruptedException, java.util.concurrent.TimeoutException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(ROUND_TIMEOUT_S);
        while (clock.completedCheckpoints() <= before) {
            if (handle.status().isTerminal()) {
                throw new IllegalStateException("job " + handle.jobName() + " ended " + handle.status());
            }
            if (System.nanoTime() > deadline) {
                throw new java.util.concurrent.TimeoutException("no checkpoint completed within " + ROUND_TIMEOUT_S + " s");
            }
            TimeUnit.MILLISECONDS.sleep(5);
        }
    }

    /** @return {@code nanos} in ms, to 0.01 ms */
    private static double ms(long nanos) {
        return round2(nanos / 1_000_000.0);
    }

    private static double round2(double v) {
        return Math.round(v * 100) / 100.0;
    }
}
