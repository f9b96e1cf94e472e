package io.weir.benchmarks.upgrade;

import io.weir.api.plugin.OperatorFactory;
import io.weir.benchmarks.JsonLines;
import io.weir.core.config.Configuration;
import io.weir.core.plugin.MapPluginRegistry;
import io.weir.core.plugin.PluginOrigin;
import io.weir.core.plugin.PluginVersion;
import io.weir.rest.node.NodeJob;
import io.weir.rest.node.NodeJobs;
import io.weir.rest.node.PluginUpgrade;
import io.weir.rest.node.PluginUpgrades;
import io.weir.rest.node.PluginWait;
import io.weir.runtime.engine.LocalEngine;
import jakarta.json.spi.JsonProvider;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;

/**
 * {@code benchmarks/run.sh upgrade}: a throughput-16-like job (datagen, unlimited rate, 100-byte rows, 16 keys,
 * checkpoint every 1 s → keyed-aggregate (count, max seq), parallelism 2 → a two-phase-commit sink that records every
 * committed sequence number) is moved {@code --upgrades} times in a row to a new version of its keyed-aggregate plugin
 * by the node's {@link PluginUpgrades} (stop-with-savepoint, re-bind, restore), one new version every
 * {@code --interval-s} seconds. Prints one JSON line per upgrade and a summary: downtime median and max (the engine's
 * measure: stop-with-savepoint end to the first row of the new run), records lost and duplicated checked by
 * sequence numbers over everything committed, and the throughput (rows/s written to the sink) before the first and
 * after the last upgrade.
 *
 * <p>Versions are registered by hand into the registry (new factory objects with origin
 * {@code bench.operators-basic 1.k.0}), as DS does when a bundle of a new version starts: no OSGi, no FileInstall
 * (their share of an upgrade on a node — detecting the jar, updating the bundle — is not part of the downtime).
 */
@Command(name = "upgrade", mixinStandardHelpOptions = true, description = "Plugin upgrades in a row under a running job")
public final class UpgradeBenchmark implements Callable<Integer> {
    @Option(names = "--upgrades", defaultValue = "10", description = "upgrades in a row (default ${DEFAULT-VALUE})")
    int upgrades;
    @Option(names = "--interval-s", defaultValue = "2", description = "seconds between upgrades (default ${DEFAULT-VALUE})")
    int intervalS;
    @Option(names = "--measure-s", defaultValue = "5", description = "seconds of throughput before and after (default ${DEFAULT-VALUE})")
    int measureS;
    @Option(names = "--warmup-s", defaultValue = "5", description = "seconds before measuring (default ${DEFAULT-VALUE})")
    int warmupS;

    public static void main(String[] args) {
        System.exit(new CommandLine(new UpgradeBenchmark()).execute(args));
    }

    @Override
    public Integer call() throws Exception {
        JsonProvider json = JsonProvider.provider();
        JsonLines out = new JsonLines(json, System.out);
        Path dir = Files.createTempDirectory("weir-upgrade-bench");
        ClassLoader loader = UpgradeBenchmark.class.getClassLoader();
        MapPluginRegistry registry = MapPluginRegistry.fromServiceLoader(loader);
        SequenceSinkFactory sink = new SequenceSinkFactory();
        registry.addSink(sink);
        OperatorFactory shipped = registry.operator("keyed-aggregate").orElseThrow();
        try (LocalEngine engine = LocalEngine.fromServiceLoader(loader, Configuration.empty())) {
            NodeJobs jobs = new NodeJobs(engine, registry, json, PluginWait.NONE, System::currentTimeMillis);
            try (PluginUpgrades node = new PluginUpgrades(jobs, registry, dir.resolve("savepoints"), System::currentTimeMillis, () -> false)) {
                NodeJob job = jobs.submit(spec(dir), dir, Map.of());
                TimeUnit.SECONDS.sleep(warmupS);
                double before = throughput(sink, measureS);
                for (int k = 1; k <= upgrades; k++) {
                    OperatorFactory next = shipped.getClass().getDeclaredConstructor().newInstance();
                    registry.addOperator(next, new PluginOrigin("bench.operators-basic", new PluginVersion(1, k, 0, "")));
                    PluginUpgrade u = awaitUpgrade(jobs, job.id(), k);
                    out.write(json.createObjectBuilder().add("upgrade", k).add("to", String.join(", ", u.to()))
                            .add("outcome", u.outcome().name()).add("downtime_ms", u.downtimeMs()).build());
                    TimeUnit.SECONDS.sleep(intervalS);
                }
                double after = throughput(sink, measureS);
                NodeJob last = jobs.find(job.id());
                List<PluginUpgrade> history = last.upgrades().upgrades();
                Path finalSavepoint = stop(jobs, job.id(), dir);
                SequenceSinkFactory.Check check = sink.check();
                List<Long> downtimes = new ArrayList<>(history.stream().map(PluginUpgrade::downtimeMs).sorted().toList());
                out.write(json.createObjectBuilder()
                        .add("benchmark", "upgrade")
                        .add("upgrades", history.size())
                        .add("upgraded", history.stream().filter(u -> u.outcome() == PluginUpgrade.Outcome.UPGRADED).count())
                        .add("downtime_median_ms", downtimes.get(downtimes.size() / 2))
                        .add("downtime_max_ms", downtimes.get(downtimes.size() - 1))
                        .add("records_committed", check.distinct())
                        .add("records_lost", check.lost())
                        .add("records_duplicated", check.duplicated())
                        .add("throughput_before_rps", Math.round(before))
                        .add("throughput_after_rps", Math.round(after))
                        .add("final_savepoint", String.valueOf(finalSavepoint))
                        .build());
                return check.lost() == 0 && check.duplicated() == 0 ? 0 : 1;
            }
        } finally {
            deleteRecursively(dir);
        }
    }

    private static void deleteRecursively(Path dir) throws java.io.IOException {
        try (java.util.stream.Stream<Path> all = Files.walk(dir)) {
            for (Path p : all.sorted(java.util.Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }

    /** Waits up to 60 s for move {@code k} of the job to pass probation with its downtime measured. */
    private static PluginUpgrade awaitUpgrade(NodeJobs jobs, String id, int k) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (System.nanoTime() < deadline) {
            List<PluginUpgrade> all = jobs.find(id).upgrades().upgrades();
            if (all.size() >= k) {
                PluginUpgrade u = all.get(k - 1);
                if (u.outcome() != PluginUpgrade.Outcome.IN_PROGRESS && u.downtimeMs() >= 0) {
                    return u;
                }
                if (u.outcome() == PluginUpgrade.Outcome.ROLLED_BACK || u.outcome() == PluginUpgrade.Outcome.FAILED) {
                    throw new IllegalStateException("upgrade " + k + " " + u.outcome() + ": " + u.message());
                }
            }
            TimeUnit.MILLISECONDS.sleep(5);
        }
        throw new IllegalStateException("upgrade " + k + " did not complete within 60 s: " + jobs.find(id).upgrades().upgrades());
    }

    /** @return rows/s written to the sink over {@code seconds} */
    private static double throughput(SequenceSinkFactory sink, int seconds) throws InterruptedException {
        long n0 = sink.written();
        long t0 = System.nanoTime();
        TimeUnit.SECONDS.sleep(seconds);
        return (sink.written() - n0) * 1e9 / (System.nanoTime() - t0);
    }

    /** Stops the job with a savepoint (everything before it committed) and returns it. */
    private static Path stop(NodeJobs jobs, String id, Path dir) throws Exception {
        io.weir.rest.node.JobOperations ops = new io.weir.rest.node.JobOperations(jobs, dir.resolve("savepoints"));
        String request = ops.stop(id, null, false);
        Object result = ops.status(id, request, io.weir.rest.node.JobOperations.Kind.STOP).result().get(60, TimeUnit.SECONDS);
        return (Path) result;
    }

    private static String spec(Path dir) {
        return """
                {"name": "upgrade-bench",
                 "config": {"execution.checkpointing.interval": "1000 ms", "execution.checkpointing.dir": "%s"},
                 "operators": [
                  {"id": "source", "type": "datagen", "parallelism": 1, "config": {"rate": 0, "record-size": 100, "keys": 16}},
                  {"id": "counter", "type": "keyed-aggregate", "parallelism": 2,
                   "inputs": [{"from": "source", "partitioning": "hash", "keys": ["key"]}],
                   "config": {"key": ["key"], "aggregates": [{"fn": "count", "as": "count"}, {"fn": "max", "field": "seq", "as": "seq"}]}},
                  {"id": "sink", "type": "%s", "parallelism": 2, "inputs": ["counter"]}
                 ]}""".formatted(dir.resolve("checkpoints"), SequenceSinkFactory.TYPE);
    }
}
