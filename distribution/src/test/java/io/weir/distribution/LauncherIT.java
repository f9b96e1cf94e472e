package io.weir.distribution;

import jakarta.json.Json;
import jakarta.json.JsonArray;
import jakarta.json.JsonArrayBuilder;
import jakarta.json.JsonObject;
import jakarta.json.JsonReader;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Runs the assembled distribution ({@code target/weir}, system property {@code weir.home}) the way
 * a user does: {@code bin/weir} as a child process, checking exit codes and output.
 */
class LauncherIT {
    private static final Path HOME = Path.of(System.getProperty("weir.home", "target/weir")).toAbsolutePath();
    private static final Path WEIR = HOME.resolve("bin/weir");
    private static final Path EXAMPLES = HOME.resolve("examples");

    @TempDir
    Path work;

    /** What a finished {@code bin/weir} process left behind. */
    record Run(int exitCode, String out, String err, Duration took) {
        @Override
        public String toString() {
            return "exit " + exitCode + " after " + took.toMillis() + " ms\n--- stdout ---\n" + out + "\n--- stderr ---\n" + err;
        }
    }

    private Run weir(Path workingDir, Duration timeout, String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>();
        command.add(WEIR.toString());
        command.addAll(List.of(args));
        Path out = Files.createTempFile(work, "out", ".txt");
        Path err = Files.createTempFile(work, "err", ".txt");
        long start = System.nanoTime();
        Process p = new ProcessBuilder(command).directory(workingDir.toFile())
                .redirectOutput(out.toFile()).redirectError(err.toFile()).redirectInput(ProcessBuilder.Redirect.PIPE).start();
        p.getOutputStream().close();
        if (!p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
            p.descendants().forEach(ProcessHandle::destroyForcibly);
            p.destroyForcibly();
            throw new AssertionError("bin/weir " + String.join(" ", args) + " did not end within " + timeout.toSeconds()
                    + " s\n--- stdout ---\n" + Files.readString(out) + "\n--- stderr ---\n" + Files.readString(err));
        }
        return new Run(p.exitValue(), Files.readString(out, StandardCharsets.UTF_8), Files.readString(err, StandardCharsets.UTF_8),
                Duration.ofNanos(System.nanoTime() - start));
    }

    /** Copies the examples into the test's own directory: checkpoints and output must not leak between runs. */
    private Path copyOfExamples() throws IOException {
        Path target = work.resolve("examples");
        try (Stream<Path> files = Files.walk(EXAMPLES)) {
            for (Path source : (Iterable<Path>) files::iterator) {
                Path dest = target.resolve(EXAMPLES.relativize(source).toString());
                if (Files.isDirectory(source)) {
                    Files.createDirectories(dest);
                } else {
                    Files.copy(source, dest, StandardCopyOption.REPLACE_EXISTING);
                }
            }
        }
        return target;
    }

    @Test
    void flightDelaysExampleFinishesWithCheckpointLinesAndSubtaskTable() throws Exception {
        Path examples = copyOfExamples();

        // relative job path from the job's parent directory, like the README's demo command
        Run run = weir(examples.getParent(), Duration.ofMinutes(2), "run", "examples/flight-delays.json");

        assertThat(run.exitCode()).as(run.toString()).isZero();
        assertThat(run.out()).as(run.toString())
                .containsPattern("Completed checkpoint \\d+ for job flight-delays \\(\\d+ bytes, \\d+ ms\\)")
                .contains("vertex", "subtask", "start_delay", "alignment", "sync", "async", "end_to_end", "size")
                .contains("Job flight-delays FINISHED");
    }

    @Test
    void unknownPluginTypeExitsTwoNamingTheFieldWithinFifteenSeconds() throws Exception {
        Path examples = copyOfExamples();
        JsonObject job;
        try (JsonReader r = Json.createReader(new StringReader(Files.readString(examples.resolve("flight-delays.json"))))) {
            job = r.readObject();
        }
        JsonArray ops = job.getJsonArray("operators");
        JsonArrayBuilder broken = Json.createArrayBuilder();
        for (int i = 0; i < ops.size(); i++) {
            broken.add(i == 1 ? Json.createObjectBuilder(ops.getJsonObject(i)).add("type", "no-such-operator").build() : ops.get(i));
        }
        Path bad = examples.resolve("bad-type.json");
        Files.writeString(bad, Json.createObjectBuilder(job).add("operators", broken).build().toString());

        Run run = weir(work, Duration.ofSeconds(30), "run", bad.toString());

        assertThat(run.exitCode()).as(run.toString()).isEqualTo(2);
        assertThat(run.err()).as(run.toString()).contains("error: operators[1].type 'no-such-operator'");
        assertThat(run.out()).as(run.toString()).doesNotContain("Submitted job");
        assertThat(run.took()).as(run.toString()).isLessThan(Duration.ofSeconds(15));
    }

    @Test
    void engineOptionInTheJobExitsTwoSayingWhereItGoes() throws Exception {
        Path examples = copyOfExamples();

        Run run = weir(examples.getParent(), Duration.ofSeconds(60), "run", "examples/flight-delays.json",
                "--set", "state.async-snapshot.threads=4");

        assertThat(run.exitCode()).as(run.toString()).isEqualTo(2);
        assertThat(run.err()).as(run.toString()).contains("error: --set state.async-snapshot.threads=4: state.async-snapshot.threads"
                + " is an engine option").contains("conf/engine/io.weir.engine.cfg");
        assertThat(run.out()).as(run.toString()).doesNotContain("Submitted job");
    }

    @Test
    void missingJobFileExitsTwoWithoutStartingTheEngine() throws Exception {
        Run run = weir(work, Duration.ofSeconds(30), "run", "no-such-job.json");

        assertThat(run.exitCode()).as(run.toString()).isEqualTo(2);
        assertThat(run.err()).as(run.toString()).contains("error: job file no-such-job.json does not exist");
    }

    @Test
    void pluginsListsTheBundledSourceOperatorAndSinkTypes() throws Exception {
        Run run = weir(work, Duration.ofSeconds(60), "plugins");

        assertThat(run.exitCode()).as(run.toString()).isZero();
        assertThat(run.out()).as(run.toString()).contains("TYPE").contains("source").contains("operator").contains("sink");
    }

    @Test
    void versionNeedsNoFramework() throws Exception {
        Run run = weir(work, Duration.ofSeconds(30), "--version");

        assertThat(run.exitCode()).as(run.toString()).isZero();
        assertThat(run.out()).as(run.toString()).contains("weir 0.1.0").contains("Apache Felix 7.0.5");
    }
}
