package io.weir.rest.node;

import io.weir.api.plugin.SinkFactory;
import io.weir.core.config.CheckpointingOptions;
import io.weir.core.engine.JobStatus;
import io.weir.core.job.JobGraph;
import io.weir.core.plugin.MapPluginRegistry;
import io.weir.core.plugin.PluginOrigin;
import io.weir.core.plugin.PluginVersion;
import jakarta.json.spi.JsonProvider;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The node moves running jobs between plugin versions: stop-with-savepoint, re-bind, restore; parks them when a
 * plugin goes; rolls back a version that fails in probation. Against {@link TestEngine}, so every step is driven
 * by the test.
 */
class PluginUpgradesTest {
    private static final Duration WAIT = Duration.ofSeconds(30);
    private static final PluginOrigin V1 = new PluginOrigin("io.weir.test.sinks", PluginVersion.parse("1.0.0"));
    private static final PluginOrigin V11 = new PluginOrigin("io.weir.test.sinks", PluginVersion.parse("1.1.0"));
    private static final PluginOrigin V2 = new PluginOrigin("io.weir.test.sinks", PluginVersion.parse("2.0.0"));
    private static final Path SAVEPOINT = Path.of("/sp/upgrades/savepoint-1");

    private final TestEngine engine = new TestEngine();
    private final MapPluginRegistry registry = new MapPluginRegistry();
    private final NodeJobs jobs = new NodeJobs(engine, registry, JsonProvider.provider(), PluginWait.NONE, System::currentTimeMillis);
    private final PluginUpgrades upgrades;
    private final SinkFactory v1 = TestPlugins.discard();

    PluginUpgradesTest() {
        registry.addSource(TestPlugins.registry().source("numbers").orElseThrow());
        registry.addSink(v1, V1);
        engine.stopsAt = SAVEPOINT;
        upgrades = new PluginUpgrades(jobs, registry, Path.of("/sp"), System::currentTimeMillis, () -> false);
    }

    @AfterEach
    void close() {
        upgrades.close();
    }

    private static String job(String range) {
        return """
                {"name": "j", "operators": [
                  {"id": "src", "type": "numbers"},
                  {"id": "out", "type": "discard", %s"inputs": ["src"]}
                ]}""".formatted(range == null ? "" : "\"version\": \"" + range + "\", ");
    }

    private NodeJob submit(String range) {
        return jobs.submit(job(range), Path.of("/tmp"), Map.of());
    }

    private Object sinkFactoryOf(int submit) {
        return engine.graphs.get(submit).vertex("out").plugin().factory();
    }

    @Test
    void aNewVersionInRangeMovesTheJobThroughStopWithSavepointAndRestore() {
        NodeJob first = submit(null);
        TestEngine.TestJob oldRun = engine.jobs.get("j");

        SinkFactory v11 = TestPlugins.discard();
        registry.addSink(v11, V11);

        await().atMost(WAIT).until(() -> engine.graphs.size() == 2);
        assertThat(oldRun.savepointDirectory).isEqualTo(Path.of("/sp/upgrades"));
        assertThat(oldRun.drained).as("stopped without drain: sources stop at the savepoint barrier").isFalse();
        assertThat(sinkFactoryOf(1)).isSameAs(v11);
        assertThat(engine.configs.get("j").get(CheckpointingOptions.SAVEPOINT_PATH)).isEqualTo(SAVEPOINT.toString());
        NodeJob next = jobs.find("j");
        assertThat(next).isNotSameAs(first);
        assertThat(next.id()).isEqualTo(first.id());
        assertThat(next.status()).isEqualTo(JobStatus.RUNNING);

        long stopEnd = next.upgrades().upgrades().get(0).time();
        engine.jobs.get("j").firstRecordTime = stopEnd + 10_000; // the engine's first row of the new run
        engine.jobs.get("j").listener.onCompleted(new io.weir.core.coordination.CompletedCheckpointStats(1, 0, 1, 1, 0, false,
                Map.of(), false, null));
        await().atMost(WAIT).untilAsserted(() -> {
            PluginUpgrade u = jobs.find("j").upgrades().upgrades().get(0);
            assertThat(u.outcome()).isEqualTo(PluginUpgrade.Outcome.UPGRADED);
            assertThat(u.from()).containsExactly("src: numbers unbundled 0.0.0", "out: discard io.weir.test.sinks 1.0.0");
            assertThat(u.to()).containsExactly("src: numbers unbundled 0.0.0", "out: discard io.weir.test.sinks 1.1.0");
            assertThat(u.savepoint()).isEqualTo(SAVEPOINT.toString());
            assertThat(u.downtimeMs()).isBetween(9_000L, 10_000L);
        });
    }

    @Test
    void aVersionOutsideTheJobsRangeLeavesItAlone() {
        submit("[1.0,1.1)");
        registry.addSink(TestPlugins.discard(), V11);
        upgrades.check();
        assertThat(engine.graphs).hasSize(1);
        assertThat(engine.jobs.get("j").savepointDirectory).isNull();
        assertThat(jobs.find("j").upgrades().upgrades()).isEmpty();
    }

    @Test
    void aFailureBeforeTheFirstCheckpointRollsBackToTheOldVersionNamingBoth() {
        submit(null);
        registry.addSink(TestPlugins.discard(), V11);
        await().atMost(WAIT).until(() -> engine.graphs.size() == 2);
        TestEngine.TestJob failing = engine.jobs.get("j");

        failing.listener.onRestart("j", 1, new IllegalStateException("initializeState: unknown state schema 7"));

        await().atMost(WAIT).until(() -> engine.graphs.size() == 3);
        assertThat(failing.cancelled()).isTrue();
        assertThat(sinkFactoryOf(2)).as("back on the old version's very factory").isSameAs(v1);
        assertThat(engine.configs.get("j").get(CheckpointingOptions.SAVEPOINT_PATH)).isEqualTo(SAVEPOINT.toString());
        PluginUpgrade u = jobs.find("j").upgrades().upgrades().get(0);
        assertThat(u.outcome()).isEqualTo(PluginUpgrade.Outcome.ROLLED_BACK);
        assertThat(u.message()).contains("'discard' io.weir.test.sinks 1.1.0 failed on restore",
                "initializeState: unknown state schema 7", "rolled back to 'discard' io.weir.test.sinks 1.0.0 from",
                "savepoint " + SAVEPOINT);
        assertThat(jobs.find("j").status()).isEqualTo(JobStatus.RUNNING);

        // pinned to 1.0: a quiet registry does not move it to 1.1 again (no loop) ...
        upgrades.check();
        assertThat(engine.graphs).hasSize(3);
        // ... until a newer version than the failed one appears
        SinkFactory v2 = TestPlugins.discard();
        registry.addSink(v2, V2);
        await().atMost(WAIT).until(() -> engine.graphs.size() == 4);
        assertThat(sinkFactoryOf(3)).isSameAs(v2);
    }

    @Test
    void aFailureWithTheOldVersionGoneFailsTheJobNamingTheSavepoint() {
        submit(null);
        registry.removeSink(v1); // an update in place: the old revision's factory leaves first ...
        assertThat(jobs.find("j").status()).isEqualTo(JobStatus.SUSPENDED);
        registry.addSink(TestPlugins.discard(), V11); // ... then the new one comes
        await().atMost(WAIT).until(() -> engine.graphs.size() == 2);

        engine.jobs.get("j").listener.onRestart("j", 1, new IllegalStateException("open: boom"));

        await().atMost(WAIT).until(() -> jobs.find("j").status() == JobStatus.FAILED);
        String failure = String.valueOf(jobs.find("j").result().failure());
        assertThat(failure).contains("'discard' io.weir.test.sinks 1.1.0 failed on restore", "open: boom",
                "the version it ran before, 'discard' io.weir.test.sinks 1.0.0, is no longer installed",
                "weir run --from-savepoint " + SAVEPOINT);
        assertThat(jobs.find("j").upgrades().upgrades().get(0).outcome()).isEqualTo(PluginUpgrade.Outcome.FAILED);
        assertThat(engine.graphs).hasSize(2);
    }

    @Test
    void aRemovedPluginSuspendsTheJobWithASavepointAndItResumesWhenAVersionComesBack() {
        NodeJob first = submit("[1.0,2.0)");
        TestEngine.TestJob run = engine.jobs.get("j");

        registry.removeSink(v1);

        // stopped on the removing thread, before the bundle's classes go
        assertThat(run.stop).isCompletedWithValue(SAVEPOINT);
        NodeJob parked = jobs.find("j");
        assertThat(parked.status()).isEqualTo(JobStatus.SUSPENDED);
        assertThat(String.valueOf(parked.result().failure())).isEqualTo("waiting for plugin discard (io.weir.test.sinks 1.0.0): "
                + "it was removed while the job used it; the job resumes from savepoint " + SAVEPOINT
                + " when a version of 'discard' in [1.0.0,2.0.0) is installed into plugins/");
        assertThat(parked.id()).isEqualTo(first.id());

        registry.addSink(TestPlugins.discard(), V2); // outside the range: stays parked
        upgrades.check();
        assertThat(engine.graphs).hasSize(1);

        SinkFactory back = TestPlugins.discard();
        registry.addSink(back, V11);
        await().atMost(WAIT).until(() -> engine.graphs.size() == 2);
        assertThat(sinkFactoryOf(1)).isSameAs(back);
        assertThat(jobs.find("j").status()).isEqualTo(JobStatus.RUNNING);
        assertThat(engine.configs.get("j").get(CheckpointingOptions.SAVEPOINT_PATH)).isEqualTo(SAVEPOINT.toString());
        JobGraph resumed = engine.graphs.get(1);
        assertThat(resumed.vertex("out").plugin().origin()).isEqualTo(V11);
        assertThat(jobs.find("j").upgrades().upgrades().get(0).to()).contains("out: discard io.weir.test.sinks 1.1.0");
    }

    @Test
    void aRunThatPassedProbationKeepsNoReferenceToTheOldVersionsFactory() {
        registry.removeSink(v1);
        java.lang.ref.WeakReference<SinkFactory> old = submitOnAFactoryOnlyTheRegistryHolds();
        // an update in place: the old version's factory leaves (the job is parked with a savepoint), the new one comes
        registry.removeSink(old.get());
        registry.addSink(TestPlugins.discard(), V11);
        await().atMost(WAIT).until(() -> engine.graphs.size() == 2);
        engine.jobs.get("j").listener.onCompleted(new io.weir.core.coordination.CompletedCheckpointStats(1, 0, 1, 1, 0, false,
                Map.of(), false, null));
        await().atMost(WAIT).until(() -> jobs.find("j").upgrades().upgrades().get(0).outcome() == PluginUpgrade.Outcome.UPGRADED);
        engine.graphs.set(0, null); // the test engine's own record of the first run

        // in OSGi the factory's class keeps the old bundle revision's class loader reachable: it must become garbage
        await("the old version's factory is collected").atMost(WAIT).pollInterval(Duration.ofMillis(200)).until(() -> {
            System.gc();
            return old.get() == null;
        });
    }

    /** Registers a new 1.0.0 factory, submits the job on it and returns a weak reference to it (no strong one stays here). */
    private java.lang.ref.WeakReference<SinkFactory> submitOnAFactoryOnlyTheRegistryHolds() {
        SinkFactory factory = TestPlugins.discard();
        registry.addSink(factory, V1);
        submit(null);
        assertThat(sinkFactoryOf(0)).isSameAs(factory);
        return new java.lang.ref.WeakReference<>(factory);
    }

    @Test
    void aMoveDoesNotPersistTheStoppedRunAsFinished(@org.junit.jupiter.api.io.TempDir Path dir) {
        JobRegistry store = new JobRegistry(dir, JsonProvider.provider());
        NodeJobs persisted = new NodeJobs(engine, registry, JsonProvider.provider(), PluginWait.NONE, System::currentTimeMillis, store);
        try (PluginUpgrades moving = new PluginUpgrades(persisted, registry, Path.of("/sp"), System::currentTimeMillis, () -> false)) {
            persisted.submit(job(null), Path.of("/tmp"), Map.of());
            TestEngine.TestJob oldRun = engine.jobs.get("j");
            registry.addSink(TestPlugins.discard(), V11);
            await().atMost(WAIT).until(() -> engine.graphs.size() == 2);
            assertThat(oldRun.status()).isEqualTo(JobStatus.FINISHED);
            assertThat(persisted.list()).hasSize(1);
            JobRecord onDisk = store.load().get(0).record();
            assertThat(onDisk.status()).isEqualTo(JobStatus.RUNNING);
            assertThat(onDisk.overrides()).containsEntry(CheckpointingOptions.SAVEPOINT_PATH.key(), SAVEPOINT.toString());
        }
    }

    @Test
    void aJobWaitingForItsPluginWhenTheNodeStoppedStillWaitsAfterARestartAndResumes(@org.junit.jupiter.api.io.TempDir Path dir) {
        JobRegistry store = new JobRegistry(dir, JsonProvider.provider());
        NodeJobs before = new NodeJobs(engine, registry, JsonProvider.provider(), PluginWait.NONE, System::currentTimeMillis, store);
        try (PluginUpgrades moving = new PluginUpgrades(before, registry, Path.of("/sp"), System::currentTimeMillis, () -> false)) {
            before.submit(job(null), Path.of("/tmp"), Map.of());
            registry.removeSink(v1);
            assertThat(before.find("j").status()).isEqualTo(JobStatus.SUSPENDED);
        }
        before.close();

        // the node restarts without the plugin
        MapPluginRegistry without = new MapPluginRegistry();
        without.addSource(registry.source("numbers").orElseThrow());
        TestEngine second = new TestEngine();
        NodeJobs after = new NodeJobs(second, without, JsonProvider.provider(), PluginWait.NONE, System::currentTimeMillis, store);
        try (PluginUpgrades moving = new PluginUpgrades(after, without, Path.of("/sp"), System::currentTimeMillis, () -> false)) {
            after.recover();
            assertThat(after.find("j").status()).as("still waiting, not FAILED").isEqualTo(JobStatus.SUSPENDED);
            assertThat(String.valueOf(after.find("j").result().failure())).startsWith("waiting for plugin discard");

            without.addSink(TestPlugins.discard(), V11);

            await().atMost(WAIT).until(() -> after.find("j").status() == JobStatus.RUNNING);
            assertThat(second.configs.get("j").get(CheckpointingOptions.SAVEPOINT_PATH)).isEqualTo(SAVEPOINT.toString());
            assertThat(second.graphs.get(0).vertex("out").plugin().origin()).isEqualTo(V11);
        }
    }
}
