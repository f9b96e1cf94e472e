package io.weir.launcher;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

class LauncherTest {
    @TempDir
    Path dir;

    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();
    private final RecordingExecutor executor = new RecordingExecutor();
    private final Launcher launcher = new Launcher(executor, new PrintStream(out, true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8));

    /** Records what would have been run inside OSGi. */
    private static final class RecordingExecutor implements CommandExecutor {
        final List<Map<String, Object>> requests = new ArrayList<>();
        String feature;
        boolean shell;
        int exitCode;
        RuntimeException failure;

        @Override
        public int execute(Map<String, Object> request, String featureName, boolean interactiveShell) {
            requests.add(request);
            feature = featureName;
            shell = interactiveShell;
            if (failure != null) {
                throw failure;
            }
            return exitCode;
        }
    }

    private Path job() throws IOException {
        return Files.writeString(dir.resolve("job.json"), "{}");
    }

    private String err() {
        return err.toString(StandardCharsets.UTF_8);
    }

    @Test
    void missingJobFileExitsWithUsageBeforeBootingAndNamesTheFile() {
        int rc = launcher.execute("run", dir.resolve("nope.json").toString());

        assertThat(rc).isEqualTo(ExitCodes.USAGE);
        assertThat(err()).startsWith("error: job file ").contains("nope.json").contains("does not exist");
        assertThat(executor.requests).isEmpty();
    }

    @Test
    void directoryGivenAsJobFileIsRejected() {
        int rc = launcher.execute("run", dir.toString());

        assertThat(rc).isEqualTo(ExitCodes.USAGE);
        assertThat(err()).contains("is a directory");
        assertThat(executor.requests).isEmpty();
    }

    @Test
    void setWithoutEqualsSignIsRejectedNamingThePair() throws IOException {
        int rc = launcher.execute("run", job().toString(), "--set", "execution.checkpointing.interval");

        assertThat(rc).isEqualTo(ExitCodes.USAGE);
        assertThat(err()).contains("--set 'execution.checkpointing.interval' is not key=value");
        assertThat(executor.requests).isEmpty();
    }

    @Test
    void setWithEmptyKeyIsRejected() throws IOException {
        int rc = launcher.execute("run", job().toString(), "--set", "=5s");

        assertThat(rc).isEqualTo(ExitCodes.USAGE);
        assertThat(err()).contains("--set '=5s' has an empty key");
    }

    @Test
    void runHandsAbsoluteJobPathAndOverridesInOrderToTheExecutor() throws IOException {
        Path job = job();
        executor.exitCode = 7;
        Path relative = Path.of("").toAbsolutePath().relativize(job);

        int rc = launcher.execute("run", relative.toString(), "--set", "b=1", "--set", "a=x=y", "--set", "c=", "--set", "b=2");

        assertThat(rc).isEqualTo(7);
        assertThat(executor.requests).hasSize(1);
        Map<String, Object> request = executor.requests.get(0);
        assertThat(request).containsEntry("command", "run").containsEntry("job", job.toAbsolutePath().normalize().toString());
        @SuppressWarnings("unchecked")
        Map<String, String> overrides = (Map<String, String>) request.get("overrides");
        assertThat(overrides).containsExactly(Map.entry("b", "2"), Map.entry("a", "x=y"), Map.entry("c", ""));
        assertThat(executor.feature).isEqualTo("embedded");
        assertThat(executor.shell).isFalse();
    }

    @Test
    void fromSavepointBecomesTheAbsoluteSavepointPathOptionAndTheFlagItsCompanion() throws IOException {
        Path savepoint = Files.createDirectories(dir.resolve("savepoint-flights-0a1b2c"));
        Files.write(savepoint.resolve("_metadata"), new byte[] {1});

        int rc = launcher.execute("run", job().toString(), "--from-savepoint", savepoint.toString(), "--allow-non-restored-state");

        assertThat(rc).isZero();
        @SuppressWarnings("unchecked")
        Map<String, String> overrides = (Map<String, String>) executor.requests.get(0).get("overrides");
        assertThat(overrides).containsExactly(Map.entry("execution.savepoint.path", savepoint.toAbsolutePath().toString()),
                Map.entry("execution.savepoint.ignore-unclaimed-state", "true"));
    }

    @Test
    void fromSavepointWithoutMetadataOrMissingExitsWithUsageBeforeBooting() throws IOException {
        Path empty = Files.createDirectories(dir.resolve("empty"));
        assertThat(launcher.execute("run", job().toString(), "--from-savepoint", empty.toString())).isEqualTo(ExitCodes.USAGE);
        assertThat(err()).startsWith("error: --from-savepoint ").contains("has no _metadata").doesNotContain("\n\t");
        assertThat(launcher.execute("run", job().toString(), "--from-savepoint", dir.resolve("gone").toString()))
                .isEqualTo(ExitCodes.USAGE);
        assertThat(err()).contains("gone does not exist");
        assertThat(launcher.execute("run", job().toString(), "--allow-non-restored-state")).isEqualTo(ExitCodes.USAGE);
        assertThat(err()).contains("--allow-non-restored-state needs --from-savepoint PATH");
        assertThat(executor.requests).isEmpty();
    }

    @Test
    void shellOptionAndFeatureReachTheExecutor() throws IOException {
        int rc = launcher.execute("--feature", "custom", "run", job().toString(), "--shell");

        assertThat(rc).isZero();
        assertThat(executor.feature).isEqualTo("custom");
        assertThat(executor.shell).isTrue();
    }

    @Test
    void pluginsSendsThePluginsRequest() {
        launcher.execute("plugins");

        assertThat(executor.requests).containsExactly(Map.of("command", "plugins"));
    }

    @Test
    void shellBootsWithoutACommand() {
        launcher.execute("shell");

        assertThat(executor.requests).containsExactly((Map<String, Object>) null);
        assertThat(executor.shell).isTrue();
    }

    @Test
    void unknownOptionIsAUsageError() throws IOException {
        int rc = launcher.execute("run", job().toString(), "--bogus");

        assertThat(rc).isEqualTo(ExitCodes.USAGE);
        assertThat(err()).contains("Unknown option: '--bogus'");
        assertThat(executor.requests).isEmpty();
    }

    @Test
    void missingCommandIsAUsageError() {
        int rc = launcher.execute();

        assertThat(rc).isEqualTo(ExitCodes.USAGE);
        assertThat(err()).contains("Missing command");
    }

    @Test
    void launcherFailureIsPrintedAsErrorWithItsExitCode() throws IOException {
        executor.failure = new LauncherException(ExitCodes.FAILED, "feature 'embedded' needs bundles that are not in bundles/: x.jar");

        int rc = launcher.execute("run", job().toString());

        assertThat(rc).isEqualTo(ExitCodes.FAILED);
        assertThat(err()).isEqualToIgnoringNewLines("error: feature 'embedded' needs bundles that are not in bundles/: x.jar");
    }

    @Test
    void versionNamesWeirAndFelix() {
        int rc = launcher.execute("--version");

        assertThat(rc).isZero();
        assertThat(out.toString(StandardCharsets.UTF_8)).contains("weir ").contains("Apache Felix 7.");
    }
}
