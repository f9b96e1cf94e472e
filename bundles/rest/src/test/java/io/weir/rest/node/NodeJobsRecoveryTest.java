package io.weir.rest.node;

import io.weir.core.engine.JobStatus;
import jakarta.json.spi.JsonProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;

/** The node's jobs with a registry: what is persisted, and what a restarted node makes of it. */
class NodeJobsRecoveryTest {
    @TempDir
    Path dir;

    private final AtomicLong clock = new AtomicLong(1_000_000);
    private final Path base = Path.of("/tmp");

    private JobRegistry registry() {
        return new JobRegistry(dir.resolve("jobs"), JsonProvider.provider());
    }

    private NodeJobs node(TestEngine engine) {
        return new NodeJobs(engine, TestPlugins.registry(), JsonProvider.provider(), PluginWait.NONE, clock::get, registry());
    }

    private JobRecord stored(String id) {
        return registry().load().stream().filter(s -> s.id().equals(id)).findFirst().orElseThrow().record();
    }

    @Test
    void submitPersistsSpecOverridesAndStatusAndEveryEndIsPersisted() {
        TestEngine engine = new TestEngine();
        NodeJobs jobs = node(engine);
        String spec = TestPlugins.job("a", 2);
        NodeJob a = jobs.submit(spec, base, Map.of("execution.checkpointing.interval", "5 s"));
        NodeJob b = jobs.submit(TestPlugins.job("b", 1), base, Map.of());

        JobRecord r = stored(a.id());
        assertThat(r.status()).isEqualTo(JobStatus.RUNNING);
        assertThat(r.spec()).isEqualTo(spec);
        assertThat(r.overrides()).isEqualTo(Map.of("execution.checkpointing.interval", "5 s"));
        assertThat(r.baseDirectory()).isEqualTo("/tmp");
        assertThat(r.submitTime()).isEqualTo(1_000_000);

        clock.set(1_005_000);
        engine.fail("a", new IllegalStateException("disk full"), 3);
        jobs.cancel(b.id());

        assertThat(stored(a.id()).status()).isEqualTo(JobStatus.FAILED);
        assertThat(stored(a.id()).failure()).contains("disk full");
        assertThat(stored(a.id()).endTime()).isEqualTo(1_005_000);
        assertThat(stored(b.id()).status()).isEqualTo(JobStatus.CANCELED);
    }

    @Test
    void aRestartedNodeResumesUnendedJobsWithTheirIdsAndListsEndedOnesAsHistory() {
        TestEngine before = new TestEngine();
        NodeJobs first = node(before);
        NodeJob running = first.submit(TestPlugins.job("running", 1), base, Map.of());
        NodeJob done = first.submit(TestPlugins.job("done", 1), base, Map.of());
        before.finish("done");

        TestEngine after = new TestEngine();
        NodeJobs second = node(after);
        int resumed = second.recover();

        assertThat(resumed).isEqualTo(1);
        assertThat(after.submitted).containsExactly("running");
        assertThat(second.find(running.id()).status()).isEqualTo(JobStatus.RUNNING);
        assertThat(second.find(running.id()).startTime()).as("the first submit time").isEqualTo(1_000_000);
        assertThat(second.find(done.id()).status()).isEqualTo(JobStatus.FINISHED);
        assertThat(second.list()).extracting(NodeJob::id).containsExactlyInAnyOrder(running.id(), done.id());
    }

    @Test
    void aJobStartedFromASavepointResumesFromItsOwnCheckpointsNotFromTheSavepointAgain() {
        TestEngine before = new TestEngine();
        NodeJobs first = node(before);
        first.submit(TestPlugins.job("restored", 1), base, Map.of("execution.savepoint.path", "/tmp/sp/savepoint-x",
                "execution.savepoint.ignore-unclaimed-state", "true", "execution.checkpointing.interval", "5 s"));

        TestEngine after = new TestEngine();
        node(after).recover();

        io.weir.core.config.Configuration resumed = after.configs.get("restored");
        assertThat(resumed.get(io.weir.core.config.CheckpointingOptions.SAVEPOINT_PATH))
                .as("still there for a job that had no checkpoint of its own yet").isEqualTo("/tmp/sp/savepoint-x");
        assertThat(resumed.get(io.weir.core.config.CheckpointingOptions.SAVEPOINT_RESUME_OWN_CHECKPOINTS))
                .as("restoring the savepoint again would repeat what the job committed since").isTrue();
        assertThat(resumed.get(io.weir.core.config.CheckpointingOptions.SAVEPOINT_IGNORE_UNCLAIMED_STATE)).isTrue();
        assertThat(resumed.get(io.weir.core.config.CheckpointingOptions.INTERVAL)).isEqualTo(5_000L);
    }

    @Test
    void stoppingTheNodeSuspendsItsRunningJobsAndTheNextStartResumesThem() {
        TestEngine engine = new TestEngine();
        NodeJobs jobs = node(engine);
        NodeJob a = jobs.submit(TestPlugins.job("a", 1), base, Map.of());
        NodeJob done = jobs.submit(TestPlugins.job("done", 1), base, Map.of());
        engine.finish("done");

        jobs.close();

        assertThat(a.status()).isEqualTo(JobStatus.SUSPENDED);
        assertThat(stored(a.id()).status()).isEqualTo(JobStatus.SUSPENDED);
        assertThat(stored(done.id()).status()).isEqualTo(JobStatus.FINISHED);
        TestEngine after = new TestEngine();
        NodeJobs second = node(after);
        assertThat(second.recover()).isEqualTo(1);
        assertThat(after.submitted).containsExactly("a");
        assertThat(second.find(a.id()).status()).isEqualTo(JobStatus.RUNNING);
        assertThat(stored(a.id()).status()).isEqualTo(JobStatus.RUNNING);
    }

    @Test
    void theLatestCheckpointAndSavepointArePersistedAndShownAfterARestartForEndedAndResumedJobs() {
        TestEngine before = new TestEngine();
        NodeJobs first = node(before);
        NodeJob stopped = first.submit(TestPlugins.job("stopped", 1), base, Map.of());
        NodeJob running = first.submit(TestPlugins.job("running", 1), base, Map.of());
        stopped.onCompleted(new io.weir.core.coordination.CompletedCheckpointStats(4, 1_000_100, 30, 2048, 0, false,
                Map.of(), false, "/cp/stopped/chk-4"));
        stopped.onCompleted(new io.weir.core.coordination.CompletedCheckpointStats(5, 1_000_200, 60, 2048, 0, false,
                Map.of(), true, "/data/savepoints/savepoint-stopped-0a0b0c"));
        running.onCompleted(new io.weir.core.coordination.CompletedCheckpointStats(9, 1_000_300, 20, 512, 0, false,
                Map.of(), false, "/cp/running/chk-9"));
        before.finish("stopped"); // as stop-with-savepoint ends it

        assertThat(stored(stopped.id()).latestSavepoint().path()).isEqualTo("/data/savepoints/savepoint-stopped-0a0b0c");
        assertThat(stored(stopped.id()).latestCheckpoint().checkpointId()).isEqualTo(4);
        assertThat(stored(running.id()).latestCheckpoint().path()).isEqualTo("/cp/running/chk-9");

        NodeJobs second = node(new TestEngine());
        second.recover();

        CheckpointHistory.Snapshot ended = second.find(stopped.id()).checkpoints().snapshot();
        assertThat(ended.latestSavepoint().externalPath()).isEqualTo("/data/savepoints/savepoint-stopped-0a0b0c");
        assertThat(ended.latestSavepoint().isSavepoint()).isTrue();
        assertThat(ended.latest().checkpointId()).isEqualTo(4);
        assertThat(ended.completed()).as("seeded, not counted again").isZero();
        CheckpointHistory.Snapshot resumed = second.find(running.id()).checkpoints().snapshot();
        assertThat(resumed.latest().externalPath()).isEqualTo("/cp/running/chk-9");
        assertThat(stored(running.id()).latestCheckpoint().checkpointId()).as("kept by the resumed job's record").isEqualTo(9);
    }

    @Test
    void aJobTheNodeStoppedWhileCancellingOrFailingEndsAsCanceledOrFailedAndIsNotResumed() {
        NodeJobs first = node(new TestEngine());
        NodeJob cancelling = first.submit(TestPlugins.job("cancelling", 1), base, Map.of());
        NodeJob failing = first.submit(TestPlugins.job("failing", 1), base, Map.of());
        NodeJob running = first.submit(TestPlugins.job("running", 1), base, Map.of());
        // as a node killed in the middle of ending them would have left them
        registry().write(stored(cancelling.id()).withStatus(JobStatus.CANCELLING, -1, null));
        registry().write(stored(failing.id()).withStatus(JobStatus.FAILING, -1, "sink lost its transaction"));

        TestEngine after = new TestEngine();
        NodeJobs second = node(after);
        clock.set(2_000_000);
        second.recover();

        assertThat(after.submitted).containsExactly("running");
        assertThat(second.find(cancelling.id()).status()).isEqualTo(JobStatus.CANCELED);
        assertThat(stored(cancelling.id()).status()).isEqualTo(JobStatus.CANCELED);
        assertThat(stored(cancelling.id()).endTime()).isEqualTo(2_000_000);
        assertThat(second.find(failing.id()).status()).isEqualTo(JobStatus.FAILED);
        assertThat(stored(failing.id()).failure()).isEqualTo("the node stopped while the job was FAILING: sink lost its transaction");
        assertThat(second.find(running.id()).status()).isEqualTo(JobStatus.RUNNING);
    }

    @Test
    void aCorruptRecordMarksThatJobFailedAndTheOthersResume() throws Exception {
        NodeJobs first = node(new TestEngine());
        NodeJob a = first.submit(TestPlugins.job("a", 1), base, Map.of());
        NodeJob b = first.submit(TestPlugins.job("b", 1), base, Map.of());
        Files.writeString(dir.resolve("jobs").resolve(a.id()).resolve("job.json"), "{\"format\": 1, \"id");

        TestEngine after = new TestEngine();
        NodeJobs second = node(after);
        second.recover();

        assertThat(after.submitted).containsExactly("b");
        NodeJob failed = second.find(a.id());
        assertThat(failed.status()).isEqualTo(JobStatus.FAILED);
        assertThat(String.valueOf(failed.result().failure())).contains("cannot read the registry record");
        assertThat(stored(a.id()).status()).as("rewritten as FAILED").isEqualTo(JobStatus.FAILED);
        assertThat(second.find(b.id()).status()).isEqualTo(JobStatus.RUNNING);
    }

    @Test
    void aJobWhoseSpecNoLongerParsesIsFailedWithTheParsersMessage() {
        NodeJobs first = node(new TestEngine());
        NodeJob a = first.submit(TestPlugins.job("a", 1), base, Map.of());
        NodeJob b = first.submit(TestPlugins.job("b", 1), base, Map.of());
        // the plugin of a's spec is gone, as after uninstalling it: rewrite the spec to name another type
        registry().write(new JobRecord(a.id(), "a", TestPlugins.job("a", 1).replace("numbers", "gone"), "/tmp",
                Map.of(), JobStatus.RUNNING, 1_000_000, -1, null));

        TestEngine after = new TestEngine();
        NodeJobs second = node(after);
        second.recover();

        assertThat(after.submitted).containsExactly("b");
        assertThat(second.find(a.id()).status()).isEqualTo(JobStatus.FAILED);
        assertThat(stored(a.id()).status()).isEqualTo(JobStatus.FAILED);
        assertThat(stored(a.id()).failure()).contains("cannot resume after the node restarted").contains("gone");
        assertThat(second.find(b.id()).status()).isEqualTo(JobStatus.RUNNING);
    }
}
