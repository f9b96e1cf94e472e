package io.weir.distribution;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * {@code bin/weir run --from-savepoint} with a relocated checkpoint (README, docs/checkpoint-format.md): a run is
 * killed with SIGKILL after a checkpoint completed, that checkpoint's directory is MOVED out of the job's checkpoint
 * directory (the rest of the job's checkpoints deleted, as the ambiguity error asks), and a new run from the new
 * path finishes with exactly-once output over both runs. Also the one-line refusals (exit 2) of paths that are not
 * savepoints. The ground truth comes from {@link ProcessKillResumeIT}'s seeded input generator.
 */
class SavepointRelocationIT {
    private static final Path HOME = Path.of(System.getProperty("weir.home", "target/weir")).toAbsolutePath();
    private static final Path WEIR = HOME.resolve("bin/weir");
    private static final String JOB = "kill-resume";

    @TempDir
    Path work;

    private Process start(Path job, Path stdout, Path stderr, String... options) throws IOException {
        List<String> command = new ArrayList<>(List.of(WEIR.toString(), "run", job.toString()));
        command.addAll(List.of(options));
        Process p = new ProcessBuilder(command).directory(work.toFile())
                .redirectOutput(stdout.toFile()).redirectError(stderr.toFile()).redirectInput(ProcessBuilder.Redirect.PIPE).start();
        p.getOutputStream().close();
        return p;
    }

    private ProcessKillResumeIT.Run run(Path job, String name, String... options) throws Exception {
        Path stdout = work.resolve(name + "-stdout.txt");
        Path stderr = work.resolve(name + "-stderr.txt");
        Process p = start(job, stdout, stderr, options);
        if (!p.waitFor(90, TimeUnit.SECONDS)) {
            WeirProcesses.killWithDescendants(p);
            throw new AssertionError("bin/weir run did not end within 90 s: " + WeirProcesses.describe(p, stdout, stderr));
        }
        return new ProcessKillResumeIT.Run(p.exitValue(), Files.readString(stdout, StandardCharsets.UTF_8),
                Files.readString(stderr, StandardCharsets.UTF_8));
    }

    @Test
    void killedRunsCheckpointMovedElsewhereRestoresThroughFromSavepointExactlyOnce() throws Exception {
        Path input = work.resolve("flights.jsonl");
        Map<String, ProcessKillResumeIT.Truth> truth = ProcessKillResumeIT.writeFlights(input);
        Path checkpoints = work.resolve("checkpoints");
        Path jobDir = checkpoints.resolve(JOB);
        Path out = work.resolve("out");
        Path job = ProcessKillResumeIT.writeJob(input, checkpoints, out);

        Path out1 = work.resolve("run1-stdout.txt");
        Path err1 = work.resolve("run1-stderr.txt");
        Process first = start(job, out1, err1);
        try {
            await("a completed checkpoint and a committed part file").atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(20))
                    .until(() -> !first.isAlive() || (ProcessKillResumeIT.latestCompletedCheckpoint(jobDir).isPresent()
                            && !WeirProcesses.committedFiles(out).isEmpty()));
            assertThat(first.isAlive()).as("first run ended before it could be killed: %s",
                    WeirProcesses.describe(first, out1, err1)).isTrue();
        } finally {
            WeirProcesses.killWithDescendants(first);
        }
        long committed = WeirProcesses.rows(out).size();
        long latest = ProcessKillResumeIT.latestCompletedCheckpoint(jobDir).orElseThrow();
        assertThat(committed).isBetween(1L, (long) ProcessKillResumeIT.RECORDS - 1);

        // move the latest checkpoint elsewhere (renamed), then remove what is left of the job's checkpoints
        Path original = jobDir.resolve("chk-" + latest);
        Path moved = work.resolve("kept/elsewhere/retained-" + latest);
        Files.createDirectories(moved.getParent());
        Files.move(original, moved);
        deleteRecursively(jobDir);
        assertThat(original).doesNotExist();

        ProcessKillResumeIT.Run second = run(job, "run2", "--from-savepoint", moved.toString());

        assertThat(second.exitCode()).as(second.toString()).isZero();
        assertThat(second.out()).as(second.toString())
                .contains("Restoring job " + JOB + " from checkpoint " + latest)
                .containsPattern("Job " + JOB + " FINISHED after \\d+ ms");
        ProcessKillResumeIT.assertExactlyOnce(out, truth);
        assertThat(moved.resolve("_metadata")).as("a restored savepoint stays the user's").exists();
    }

    @Test
    void pathsThatAreNotSavepointsExitTwoWithOneLineNamingThem() throws Exception {
        Path input = work.resolve("flights.jsonl");
        ProcessKillResumeIT.writeFlights(input, 10);
        Path job = ProcessKillResumeIT.writeJob(input, work.resolve("checkpoints"), work.resolve("out"));

        ProcessKillResumeIT.Run missing = run(job, "missing", "--from-savepoint", work.resolve("nowhere").toString());
        assertThat(missing.exitCode()).as(missing.toString()).isEqualTo(2);
        assertThat(missing.err().strip()).as(missing.toString()).doesNotContain("\n").contains("nowhere does not exist");

        Path garbage = Files.createDirectories(work.resolve("not-a-savepoint"));
        Files.writeString(garbage.resolve("_metadata"), "hello");
        ProcessKillResumeIT.Run corrupt = run(job, "corrupt", "--from-savepoint", garbage.toString());
        assertThat(corrupt.exitCode()).as(corrupt.toString()).isEqualTo(2);
        assertThat(corrupt.err().strip()).as(corrupt.toString()).doesNotContain("\n")
                .contains("is not a savepoint or checkpoint Weir can restore").contains(garbage.resolve("_metadata").toString());
        assertThat(work.resolve("out")).as("nothing ran").doesNotExist();
    }

    private static void deleteRecursively(Path dir) throws IOException {
        try (Stream<Path> all = Files.walk(dir)) {
            for (Path p : all.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        }
    }
}
