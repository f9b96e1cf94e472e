package io.weir.rest.node;

import io.weir.core.engine.JobStatus;
import jakarta.json.spi.JsonProvider;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class NodeJobsTest {
    private final TestEngine engine = new TestEngine();
    private final AtomicLong clock = new AtomicLong(1_000_000);
    private final NodeJobs jobs = new NodeJobs(engine, TestPlugins.registry(), JsonProvider.provider(), PluginWait.NONE, clock::get);
    private final Path base = Path.of("/tmp");

    @Test
    void submitGivesA32HexIdAndRunsTheJob() {
        NodeJob job = jobs.submit(TestPlugins.job("a", 2), base, Map.of());

        assertThat(job.id()).matches("[0-9a-f]{32}");
        assertThat(job.name()).isEqualTo("a");
        assertThat(job.status()).isEqualTo(JobStatus.RUNNING);
        assertThat(engine.submitted).containsExactly("a");
        assertThat(jobs.find(job.id())).isSameAs(job);
        assertThat(jobs.find("a")).isSameAs(job);
    }

    @Test
    void twoJobsGetDifferentIds() {
        NodeJob a = jobs.submit(TestPlugins.job("a", 1), base, Map.of());
        NodeJob b = jobs.submit(TestPlugins.job("b", 1), base, Map.of());

        assertThat(a.id()).isNotEqualTo(b.id());
        assertThat(jobs.list()).extracting(NodeJob::name).containsExactlyInAnyOrder("a", "b");
    }

    @Test
    void aSecondJobOfARunningNameIsAConflictAndNeverReachesTheEngine() {
        NodeJob first = jobs.submit(TestPlugins.job("a", 1), base, Map.of());

        assertThatThrownBy(() -> jobs.submit(TestPlugins.job("a", 1), base, Map.of()))
                .isInstanceOf(JobConflictException.class)
                .hasMessageContaining("'a' is already RUNNING").hasMessageContaining(first.id());
        assertThat(engine.submitted).containsExactly("a");
    }

    @Test
    void aNameCanBeSubmittedAgainOnceItsJobEnded() {
        jobs.submit(TestPlugins.job("a", 1), base, Map.of());
        engine.finish("a");

        NodeJob again = jobs.submit(TestPlugins.job("a", 1), base, Map.of());

        assertThat(again.status()).isEqualTo(JobStatus.RUNNING);
        assertThat(jobs.find("a")).as("the running one of two jobs named a").isSameAs(again);
    }

    @Test
    void anInvalidSpecCarriesTheParsersFieldPath() {
        assertThatThrownBy(() -> jobs.submit(TestPlugins.job("a", 0), base, Map.of()))
                .isInstanceOf(JobSubmissionException.class)
                .hasMessageContaining("operators[0].parallelism");
        assertThat(engine.submitted).isEmpty();
    }

    @Test
    void aBadOverrideNamesTheOverride() {
        assertThatThrownBy(() -> jobs.submit(TestPlugins.job("a", 1), base, Map.of("no.such.option", "1")))
                .isInstanceOf(JobSubmissionException.class)
                .hasMessageStartingWith("--set no.such.option");
    }

    @Test
    void unknownIdOrNameIsNotFound() {
        assertThatThrownBy(() -> jobs.find("nope")).isInstanceOf(JobNotFoundException.class).hasMessageContaining("'nope'");
    }

    @Test
    void aNameOfSeveralEndedJobsIsAmbiguous() {
        NodeJob one = jobs.submit(TestPlugins.job("a", 1), base, Map.of());
        engine.finish("a");
        NodeJob two = jobs.submit(TestPlugins.job("a", 1), base, Map.of());
        engine.finish("a");

        assertThatThrownBy(() -> jobs.find("a")).isInstanceOf(JobConflictException.class)
                .hasMessageContaining(one.id()).hasMessageContaining(two.id());
    }

    @Test
    void cancelCancelsOnlyThatJob() {
        NodeJob a = jobs.submit(TestPlugins.job("a", 1), base, Map.of());
        NodeJob b = jobs.submit(TestPlugins.job("b", 1), base, Map.of());

        jobs.cancel("a");

        assertThat(engine.jobs.get("a").cancelled()).isTrue();
        assertThat(a.status()).isEqualTo(JobStatus.CANCELED);
        assertThat(b.status()).isEqualTo(JobStatus.RUNNING);
        assertThat(engine.jobs.get("b").cancelled()).isFalse();
    }

    @Test
    void cancellingAnEndedJobIsAConflictNamingItsStatus() {
        NodeJob a = jobs.submit(TestPlugins.job("a", 1), base, Map.of());
        engine.finish("a");

        assertThatThrownBy(() -> jobs.cancel(a.id())).isInstanceOf(JobConflictException.class).hasMessageContaining("FINISHED");
    }

    @Test
    void aFailingJobLeavesTheOtherRunning() {
        NodeJob a = jobs.submit(TestPlugins.job("a", 1), base, Map.of());
        NodeJob b = jobs.submit(TestPlugins.job("b", 1), base, Map.of());

        engine.fail("a", new IllegalStateException("boom"), 3);

        assertThat(a.status()).isEqualTo(JobStatus.FAILED);
        assertThat(a.result().restarts()).isEqualTo(3);
        assertThat(b.status()).isEqualTo(JobStatus.RUNNING);
    }

    @Test
    void durationRunsUntilTheEndAndThenStops() {
        NodeJob a = jobs.submit(TestPlugins.job("a", 1), base, Map.of());
        clock.addAndGet(1500);
        assertThat(a.duration()).isEqualTo(1500);
        assertThat(a.endTime()).isEqualTo(-1);

        engine.finish("a");
        clock.addAndGet(10_000);

        assertThat(a.endTime()).isEqualTo(1_001_500);
        assertThat(a.duration()).isEqualTo(1500);
    }
}
