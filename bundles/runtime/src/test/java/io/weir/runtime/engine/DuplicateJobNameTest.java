package io.weir.runtime.engine;

import io.weir.api.Row;
import io.weir.api.Schema;
import io.weir.api.plugin.PluginConfig;
import io.weir.api.plugin.SinkFactory;
import io.weir.api.serialization.TypeSerializer;
import io.weir.api.sink.TwoPhaseCommittingSink;
import io.weir.core.config.Configuration;
import io.weir.core.engine.JobHandle;
import io.weir.core.engine.JobStatus;
import io.weir.core.job.JobGraph;
import io.weir.core.job.JobSpecParser;
import io.weir.core.plugin.MapPluginRegistry;
import io.weir.plugin.basic.discard.DiscardSink;
import io.weir.plugin.basic.discard.DiscardTransaction;
import jakarta.json.spi.JsonProvider;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.Collection;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A second submit of a running job's name is rejected without touching the running job. The
 * running job is held in the window where its final checkpoint is complete on disk but its sink has
 * not committed it yet (a latch in the sink's commit): exactly the state in which building a second
 * job master for the name would take the checkpoint for a finished run's and delete it.
 */
class DuplicateJobNameTest {
    @TempDir
    Path tmp;
    private final LocalEngine engine = LocalEngine.fromServiceLoader(getClass().getClassLoader(), Configuration.empty());
    private final CountDownLatch commitEntered = new CountDownLatch(1);
    private final CountDownLatch releaseCommit = new CountDownLatch(1);

    @AfterEach
    void stopEngine() {
        releaseCommit.countDown();
        engine.close();
    }

    @Test
    void secondSubmitOfARunningNameLeavesTheRunningJobsCheckpointsAlone() throws Exception {
        ((MapPluginRegistry) engine.services().plugins()).addSink(new CommitGateFactory());
        // no interval: the only checkpoint is the final one, so the first commit is the final checkpoint's
        String json = """
                {"name": "dup", "config": {"execution.checkpointing.dir": "checkpoints"},
                 "operators": [
                   {"id": "src", "type": "datagen", "config": {"limit": 10}},
                   {"id": "out", "type": "commit-gate", "inputs": ["src"]}]}
                """;
        JobGraph job = new JobSpecParser(engine.services().plugins(), JsonProvider.provider()).parse(json, tmp, Map.of());
        JobHandle first = engine.submit(job, stats -> { });
        assertThat(commitEntered.await(60, TimeUnit.SECONDS)).as("the final checkpoint completed and its commit began").isTrue();
        Path finalCheckpoint = tmp.resolve("checkpoints/dup/chk-1/_metadata");
        assertThat(finalCheckpoint).as("the running job's final checkpoint").exists();

        assertThatThrownBy(() -> engine.submit(job, stats -> { }))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("a job named 'dup' is already running on this engine; wait for it to end or cancel it,"
                        + " or give this job another name");

        assertThat(finalCheckpoint).as("untouched by the rejected submit").exists();
        assertThat(first.status()).isEqualTo(JobStatus.RUNNING);
        releaseCommit.countDown();
        assertThat(first.result().get(60, TimeUnit.SECONDS).status()).isEqualTo(JobStatus.FINISHED);
    }

    @Test
    void aNameIsFreeAgainOnceItsJobFailedToBuildOrEnded() throws Exception {
        String json = """
                {"name": "again", "config": {"execution.checkpointing.dir": "checkpoints"%s},
                 "operators": [
                   {"id": "src", "type": "datagen", "config": {"limit": 10}},
                   {"id": "out", "type": "discard", "inputs": ["src"]}]}
                """;
        JobSpecParser parser = new JobSpecParser(engine.services().plugins(), JsonProvider.provider());
        JobGraph unbuildable = parser.parse(json.formatted(", \"state.backend.type\": \"nosuch\""), tmp, Map.of());
        assertThatThrownBy(() -> engine.submit(unbuildable, stats -> { })).isInstanceOf(IllegalArgumentException.class)
                .hasMessageNotContaining("already running");
        JobGraph job = parser.parse(json.formatted(""), tmp, Map.of());
        assertThat(engine.submit(job, stats -> { }).result().get(60, TimeUnit.SECONDS).status()).isEqualTo(JobStatus.FINISHED);
        // the name is released when the job's result completes, by a callback right after it
        org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(30)).ignoreExceptions().untilAsserted(() ->
                assertThat(engine.submit(job, stats -> { }).result().get(60, TimeUnit.SECONDS).status()).isEqualTo(JobStatus.FINISHED));
    }

    /** Sink type {@code commit-gate}: a discard sink whose commit waits for {@link #releaseCommit}. */
    private final class CommitGateFactory implements SinkFactory {
        @Override
        public String type() {
            return "commit-gate";
        }

        @Override
        public void validate(PluginConfig config, Schema input) {
        }

        @Override
        public TwoPhaseCommittingSink<DiscardTransaction> create(PluginConfig config, Schema input) {
            DiscardSink sink = new DiscardSink();
            return new TwoPhaseCommittingSink<>() {
                @Override
                public DiscardTransaction beginTransaction() {
                    return sink.beginTransaction();
                }

                @Override
                public void write(DiscardTransaction transaction, Row row) {
                    sink.write(transaction, row);
                }

                @Override
                public DiscardTransaction preCommit(DiscardTransaction transaction) {
                    return sink.preCommit(transaction);
                }

                @Override
                public void commit(DiscardTransaction transaction) throws InterruptedException {
                    commitEntered.countDown();
                    if (!releaseCommit.await(60, TimeUnit.SECONDS)) {
                        throw new IllegalStateException("test never released the commit");
                    }
                }

                @Override
                public void abort(DiscardTransaction transaction) {
                }

                @Override
                public void abortLeftovers(Collection<DiscardTransaction> keep) {
                }

                @Override
                public TypeSerializer<DiscardTransaction> transactionSerializer() {
                    return DiscardTransaction.SERIALIZER;
                }
            };
        }
    }
}
