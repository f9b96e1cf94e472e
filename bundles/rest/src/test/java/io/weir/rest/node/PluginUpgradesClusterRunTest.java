package io.weir.rest.node;

import io.weir.api.plugin.SinkFactory;
import io.weir.core.config.CheckpointingOptions;
import io.weir.core.coordination.CompletedCheckpointStats;
import io.weir.core.engine.JobHandle;
import io.weir.core.engine.JobStatus;
import io.weir.core.plugin.MapPluginRegistry;
import io.weir.core.plugin.PluginOrigin;
import io.weir.core.plugin.PluginVersion;
import jakarta.json.spi.JsonProvider;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Plugin changes under a cluster job this node owns (issue 8 in a cluster): the job moves on its owner through a
 * suspend and its latest checkpoint (the cluster's completed store), keeps its id, and the cluster's handle of it
 * neither ends with a replaced run nor lets a job the cluster took back be moved or resumed here.
 */
class PluginUpgradesClusterRunTest {
    private static final Duration WAIT = Duration.ofSeconds(30);
    private static final String ID = "0123456789abcdef0123456789abcdef";
    private static final PluginOrigin V1 = new PluginOrigin("io.weir.test.sinks", PluginVersion.parse("1.0.0"));
    private static final PluginOrigin V11 = new PluginOrigin("io.weir.test.sinks", PluginVersion.parse("1.1.0"));
    private static final String SPEC = """
            {"name": "j", "operators": [
              {"id": "src", "type": "numbers"},
              {"id": "out", "type": "discard", "inputs": ["src"]}
            ]}""";

    private final TestEngine engine = new TestEngine();
    private final MapPluginRegistry registry = new MapPluginRegistry();
    private final NodeJobs jobs = new NodeJobs(engine, registry, JsonProvider.provider(), PluginWait.NONE, System::currentTimeMillis);
    private final PluginUpgrades upgrades;
    private final SinkFactory v1 = TestPlugins.discard();
    /** Checkpoint ids the cluster's listener was told. */
    private final List<Long> clusterSaw = new CopyOnWriteArrayList<>();
    private final JobHandle cluster;

    PluginUpgradesClusterRunTest() {
        registry.addSource(TestPlugins.registry().source("numbers").orElseThrow());
        registry.addSink(v1, V1);
        engine.stopsAt = Path.of("/sp/upgrades/savepoint-1");
        upgrades = new PluginUpgrades(jobs, registry, Path.of("/sp"), System::currentTimeMillis, () -> false);
        jobs.startClusterRun(ID, SPEC, Path.of("/tmp"), Map.of(), 1_234, stats -> clusterSaw.add(stats.checkpointId()));
        cluster = jobs.clusterHandle(ID);
    }

    @AfterEach
    void close() {
        upgrades.close();
    }

    private static CompletedCheckpointStats checkpoint(long id) {
        return new CompletedCheckpointStats(id, 0, 1, 1, 0, false, Map.of(), false, null);
    }

    @Test
    void aNewVersionMovesTheClusterJobOnItsOwnerFromItsLatestCheckpointKeepingIdAndClusterHandle() {
        TestEngine.TestJob oldRun = engine.jobs.get("j");

        SinkFactory v11 = TestPlugins.discard();
        registry.addSink(v11, V11);

        await().atMost(WAIT).until(() -> engine.graphs.size() == 2);
        assertThat(engine.graphs.get(1).vertex("out").plugin().factory()).isSameAs(v11);
        assertThat(oldRun.savepointDirectory).as("no stop-with-savepoint: it would remove the checkpoints the cluster's store names")
                .isNull();
        assertThat(oldRun.result().join().status()).isEqualTo(JobStatus.SUSPENDED);
        assertThat(engine.configs.get("j").contains(CheckpointingOptions.SAVEPOINT_PATH))
                .as("restored from its latest checkpoint in the store, not a savepoint").isFalse();
        assertThat(jobs.find("j").id()).isEqualTo(ID);
        assertThat(cluster.result()).as("the replaced run's end is not the job's end for the cluster").isNotDone();
        assertThat(cluster.status()).isEqualTo(JobStatus.RUNNING);

        engine.jobs.get("j").listener.onCompleted(checkpoint(5));
        assertThat(clusterSaw).as("the cluster's listener follows the new run").containsExactly(5L);
        await().atMost(WAIT).untilAsserted(() -> assertThat(jobs.find(ID).upgrades().upgrades().get(0).outcome())
                .isEqualTo(PluginUpgrade.Outcome.UPGRADED));

        engine.finish("j");
        assertThat(cluster.result()).as("the new run's end is the job's end").isCompleted();
        assertThat(cluster.result().join().status()).isEqualTo(JobStatus.FINISHED);
    }

    @Test
    void aRemovedPluginParksTheClusterJobOnItsOwnerWhichKeepsItAndResumesItThere() {
        registry.removeSink(v1);

        NodeJob parked = jobs.find(ID);
        assertThat(parked.status()).isEqualTo(JobStatus.SUSPENDED);
        assertThat(String.valueOf(parked.result().failure())).startsWith("waiting for plugin discard (io.weir.test.sinks 1.0.0)")
                .contains("resumes from its latest checkpoint");
        assertThat(cluster.result()).as("still this node's job: not reassigned to a member that may lack the plugin").isNotDone();
        assertThat(cluster.status()).isEqualTo(JobStatus.SUSPENDED);

        registry.addSink(TestPlugins.discard(), V11);

        await().atMost(WAIT).until(() -> engine.graphs.size() == 2);
        assertThat(jobs.find(ID).status()).isEqualTo(JobStatus.RUNNING);
        assertThat(engine.graphs.get(1).vertex("out").plugin().origin()).isEqualTo(V11);
        assertThat(cluster.result()).isNotDone();
    }

    @Test
    void aParkedClusterJobTheClusterTookBackIsNotResumedHere() {
        registry.removeSink(v1);
        assertThat(jobs.find(ID).status()).isEqualTo(JobStatus.SUSPENDED);

        cluster.suspend(); // lease lost: another member may run it now

        assertThat(cluster.result()).isCompleted();
        assertThat(cluster.result().join().status()).isEqualTo(JobStatus.SUSPENDED);
        registry.addSink(TestPlugins.discard(), V11);
        upgrades.check();
        assertThat(engine.graphs).as("not resumed on this node").hasSize(1);
    }

    @Test
    void aRunningClusterJobTheClusterTookBackIsNotMoved() {
        cluster.suspend();
        assertThat(cluster.result().join().status()).isEqualTo(JobStatus.SUSPENDED);

        registry.addSink(TestPlugins.discard(), V11);
        upgrades.check();

        assertThat(engine.graphs).as("not moved on this node").hasSize(1);
    }
}
