package io.weir.rest.node;

import io.weir.core.coordination.CompletedCheckpointStats;
import io.weir.core.engine.JobListener;
import io.weir.core.engine.JobStatus;
import jakarta.json.spi.JsonProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;

/** A cluster job's run on this node: listed under the cluster's id, followed by the cluster too, never persisted. */
class NodeJobsClusterRunTest {
    private static final String CLUSTER_ID = "0123456789abcdef0123456789abcdef";

    @TempDir
    Path dir;

    private final AtomicLong clock = new AtomicLong(2_000_000);

    private JobRegistry registry() {
        return new JobRegistry(dir.resolve("jobs"), JsonProvider.provider());
    }

    @Test
    void aClusterRunIsListedUnderTheClusterIdTellsTheClusterListenerAndIsNotPersisted() {
        TestEngine engine = new TestEngine();
        NodeJobs jobs = new NodeJobs(engine, TestPlugins.registry(), JsonProvider.provider(), PluginWait.NONE, clock::get, registry());
        List<Long> told = new CopyOnWriteArrayList<>();
        JobListener cluster = stats -> told.add(stats.checkpointId());

        NodeJob run = jobs.startClusterRun(CLUSTER_ID, TestPlugins.job("cj", 1), Path.of("/tmp"), Map.of(), 1_234, cluster);
        engine.jobs.get("cj").listener.onCompleted(new CompletedCheckpointStats(7, 2_000_100, 30, 2048, 0, false, Map.of(), false,
                "/cp/cj/chk-7"));

        assertThat(jobs.find(CLUSTER_ID)).isSameAs(run);
        assertThat(jobs.find("cj").id()).isEqualTo(CLUSTER_ID);
        assertThat(run.startTime()).as("the cluster's submit time").isEqualTo(1_234);
        assertThat(told).as("the cluster's listener").containsExactly(7L);
        assertThat(run.checkpoints().snapshot().latest().checkpointId()).as("the node's own history").isEqualTo(7);
        assertThat(registry().load()).as("nothing in the node's registry: a restart must not run it outside the cluster").isEmpty();

        engine.finish("cj");
        assertThat(jobs.find(CLUSTER_ID).status()).isEqualTo(JobStatus.FINISHED);
        assertThat(registry().load()).isEmpty();
        assertThat(new NodeJobs(new TestEngine(), TestPlugins.registry(), JsonProvider.provider(), PluginWait.NONE, clock::get,
                registry()).recover()).as("jobs a restarted node resumes").isZero();
    }

    @Test
    void theNextRunOfAClusterJobOnThisNodeKeepsTheIdAndIsMovedByPluginUpgradesWhileHeld() {
        TestEngine engine = new TestEngine();
        NodeJobs jobs = new NodeJobs(engine, TestPlugins.registry(), JsonProvider.provider(), PluginWait.NONE, clock::get, registry());
        jobs.startClusterRun(CLUSTER_ID, TestPlugins.job("cj", 1), Path.of("/tmp"), Map.of(), 1_234, stats -> { });
        engine.jobs.get("cj").suspend(); // the job moved to another member
        NodeJob local = jobs.submit(TestPlugins.job("local", 1), Path.of("/tmp"), Map.of());

        NodeJob back = jobs.startClusterRun(CLUSTER_ID, TestPlugins.job("cj", 1), Path.of("/tmp"), Map.of(), 1_234, stats -> { });

        assertThat(jobs.find(CLUSTER_ID)).isSameAs(back);
        assertThat(jobs.list()).extracting(NodeJob::id).containsExactlyInAnyOrder(CLUSTER_ID, local.id());
        assertThat(jobs.live()).as("what plugin upgrades may move").extracting(NodeJob::id)
                .containsExactlyInAnyOrder(CLUSTER_ID, local.id());

        jobs.clusterHandle(CLUSTER_ID).suspend(); // the cluster takes the job back (lease lost)
        assertThat(jobs.live()).as("a job the cluster took back is not this node's to move").extracting(NodeJob::id)
                .containsExactly(local.id());
    }
}
