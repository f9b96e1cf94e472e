package io.weir.cli.command;

import io.weir.core.checkpoint.SubtaskCheckpointMetrics;
import io.weir.core.checkpoint.TaskId;
import io.weir.core.config.CheckpointingOptions;
import io.weir.core.coordination.CompletedCheckpointStats;
import io.weir.core.engine.JobResult;
import io.weir.core.engine.JobStatus;
import jakarta.json.spi.JsonProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

class RunCommandTest {
    private static final String GOOD_JOB = """
            {"name": "demo", "operators": [
              {"id": "src", "type": "numbers", "parallelism": 2},
              {"id": "sink", "type": "discard", "parallelism": 2, "inputs": ["src"]}
            ]}""";

    @TempDir
    Path dir;

    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();
    private final TestEngine engine = new TestEngine();
    private final Set<String> awaitedTypes = new HashSet<>();
    private final RunCommand command = new RunCommand(engine, TestPlugins.registry(), JsonProvider.provider(),
            (types, timeout) -> awaitedTypes.addAll(types), Duration.ofSeconds(1),
            new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));

    private Path job(String json) throws IOException {
        return Files.writeString(dir.resolve("job.json"), json);
    }

    private String out() {
        return out.toString(StandardCharsets.UTF_8);
    }

    private String err() {
        return err.toString(StandardCharsets.UTF_8);
    }

    private static CompletedCheckpointStats checkpoint(long id) {
        return new CompletedCheckpointStats(id, 1_000, 12, 5714, 0, false, Map.of(
                new TaskId("src", 0, 0), new SubtaskCheckpointMetrics(1_010, 0, 0, 1, 2, 3000, 0, 0, false),
                new TaskId("sink", 0, 0), new SubtaskCheckpointMetrics(1_012, 4, 0, 0, 3, 2714, 0, 0, false)));
    }

    @Test
    void unknownPluginTypeExitsWithUsageNamingTheFieldAndStartsNothing() throws IOException {
        Path file = job("""
                {"name": "bad", "operators": [
                  {"id": "src", "type": "numbers"},
                  {"id": "op", "type": "no-such-operator", "inputs": ["src"]},
                  {"id": "sink", "type": "discard", "inputs": ["op"]}
                ]}""");

        int rc = command.run(file, Map.of());

        assertThat(rc).isEqualTo(ExitCodes.USAGE);
        assertThat(err()).startsWith("error: operators[1].type 'no-such-operator' is not an installed plugin type");
        assertThat(engine.submitted).isNull();
    }

    @Test
    void waitsForEveryPluginTypeTheJobNames() throws IOException {
        engine.result.complete(new JobResult("demo", JobStatus.FINISHED, null, 0, null));

        command.run(job(GOOD_JOB), Map.of());

        assertThat(awaitedTypes).containsExactlyInAnyOrder("numbers", "discard");
    }

    @Test
    void summaryCountsInTheSingularForOne() throws IOException {
        engine.result.complete(new JobResult("demo", JobStatus.FINISHED, null, 1, null));

        command.run(job(GOOD_JOB), Map.of());

        assertThat(out()).containsPattern("Job demo FINISHED after \\d+ ms: 0 checkpoints completed, 1 restart\\R");
    }

    @Test
    void unknownOverrideKeyIsAnInvalidJob() throws IOException {
        int rc = command.run(job(GOOD_JOB), Map.of("no.such.option", "1"));

        assertThat(rc).isEqualTo(ExitCodes.USAGE);
        assertThat(err()).contains("--set no.such.option=1: no.such.option is not a known option")
                .as("the bad value is on the command line, not in the job file").doesNotContain("(in ");
        assertThat(engine.submitted).isNull();
    }

    @Test
    void overridesReachTheJobConfiguration() throws IOException {
        engine.result.complete(new JobResult("demo", JobStatus.FINISHED, null, 0, null));

        command.run(job(GOOD_JOB), Map.of("execution.checkpointing.interval", "2s"));

        assertThat(engine.submitted.config().get(CheckpointingOptions.INTERVAL)).isEqualTo(2_000L);
    }

    @Test
    void finishedJobExitsZeroAfterCheckpointLinesAndTheSubtaskTable() throws IOException {
        Path file = job(GOOD_JOB);
        CompletableFuture<Integer> rc = CompletableFuture.supplyAsync(() -> command.run(file, Map.of()));
        await().until(() -> engine.listener != null);

        engine.listener.onCompleted(checkpoint(1));
        engine.listener.onRestart("demo", 1, new IllegalStateException("boom"));
        engine.listener.onCompleted(checkpoint(2));
        engine.result.complete(new JobResult("demo", JobStatus.FINISHED, null, 1, checkpoint(2)));

        assertThat(rc.join()).isEqualTo(ExitCodes.OK);
        assertThat(out()).contains("Completed checkpoint 1 for job demo (5714 bytes, 12 ms)")
                .contains("Restarting job demo (attempt 1) after: java.lang.IllegalStateException: boom")
                .contains("Completed checkpoint 2 for job demo (5714 bytes, 12 ms)")
                .contains("vertex  subtask  start_delay  alignment  sync  async  end_to_end  size")
                .contains("Job demo FINISHED after");
        assertThat(err()).isEmpty();
    }

    @Test
    void failedJobExitsOneWithItsCause() throws IOException {
        engine.result.complete(new JobResult("demo", JobStatus.FAILED, new IllegalStateException("sink broke"), 3, null));

        int rc = command.run(job(GOOD_JOB), Map.of());

        assertThat(rc).isEqualTo(ExitCodes.JOB_FAILED);
        assertThat(err()).contains("error: job demo FAILED: java.lang.IllegalStateException: sink broke");
    }

    @Test
    void jobFileWithAByteOrderMarkRunsLikeOneWithout() throws IOException {
        Path file = job(GOOD_JOB);
        Files.writeString(file, "\uFEFF" + Files.readString(file));
        engine.result.complete(new JobResult("demo", JobStatus.FINISHED, null, 0, checkpoint(1)));

        assertThat(command.run(file, Map.of())).isEqualTo(ExitCodes.OK);
        assertThat(awaitedTypes).as("the plugin types are read past the mark").containsExactlyInAnyOrder("numbers", "discard");
        assertThat(engine.submitted).isNotNull();
    }

    @Test
    void jobFileThatIsNotTextExitsTwoSayingSo() throws IOException {
        Path binary = dir.resolve("plugin.jar");
        Files.write(binary, new byte[] {(byte) 0x50, (byte) 0x4B, 3, 4, (byte) 0xC3, (byte) 0x28, 0, (byte) 0xFF});

        assertThat(command.run(binary, Map.of())).isEqualTo(ExitCodes.USAGE);
        assertThat(err()).contains("is not UTF-8 text; a job file is a JSON object");
    }

    @Test
    void failureMessageShowsARepeatedCauseOnce() {
        IllegalArgumentException root = new IllegalArgumentException("file x record 3: bad value");
        Exception wrapped = new Exception("Job demo failed after 3 restart(s): " + root.getMessage(),
                new RuntimeException("task failed", root));

        assertThat(RunCommand.describe(wrapped)).isEqualTo("Job demo failed after 3 restart(s): file x record 3: bad value;"
                + " caused by java.lang.RuntimeException: task failed");
    }

    @Test
    void interruptCancelsTheJobAndExits130() throws Exception {
        Path file = job(GOOD_JOB);
        AtomicInteger rc = new AtomicInteger(-1);
        Thread runner = new Thread(() -> rc.set(command.run(file, Map.of())));
        runner.start();
        await().until(() -> engine.listener != null);

        runner.interrupt();
        runner.join(5_000);

        assertThat(rc.get()).isEqualTo(ExitCodes.INTERRUPTED);
        assertThat(engine.cancelled).isTrue();
        assertThat(out()).contains("Cancelling job demo").contains("Job demo CANCELED");
    }

    @Test
    void unreadableJobFileExitsWithUsage() {
        int rc = command.run(dir.resolve("missing.json"), Map.of());

        assertThat(rc).isEqualTo(ExitCodes.USAGE);
        assertThat(err()).startsWith("error: cannot read job file");
    }
}
