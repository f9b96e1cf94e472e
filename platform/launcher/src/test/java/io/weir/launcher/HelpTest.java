package io.weir.launcher;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every command's {@code --help} says what it does, its options, its exit codes and which doc to read; a bad
 * command line is one line with a hint, exit 2.
 */
class HelpTest {
    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    private int weir(String... args) {
        return new Launcher((r, f, s) -> {
            throw new AssertionError("help must not boot Felix");
        }, new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8), Path.of("/weir"),
                (a, log) -> {
                    throw new AssertionError("help must not start a node");
                }).execute(args);
    }

    @ParameterizedTest
    @ValueSource(strings = {"run", "node", "node start", "node stop", "node status", "submit", "list", "info", "cancel",
        "checkpoint", "savepoint", "stop", "plugins", "shell"})
    void helpOfEveryCommandHasUsageExitCodesAndDocs(String command) {
        String[] args = (command + " --help").split(" ");

        int rc = weir(args);

        String help = out.toString(StandardCharsets.UTF_8);
        assertThat(rc).isZero();
        assertThat(help).startsWith("Usage: weir " + command + " ").contains("\nExit codes").containsPattern("\n  [0-9]+ +")
                .containsPattern("\nDocs: .*(docs/[a-z-]+\\.md|README\\.md)").contains("-h, --help");
        assertThat(err.toString(StandardCharsets.UTF_8)).isEmpty();
    }

    @Test
    void topLevelHelpListsEveryCommand() {
        assertThat(weir("--help")).isZero();

        String help = out.toString(StandardCharsets.UTF_8);
        for (String command : new String[] {"run", "node", "submit", "list", "info", "cancel", "checkpoint", "savepoint", "stop", "plugins",
            "shell"}) {
            assertThat(help).containsPattern("\n  " + command + " +[A-Z]");
        }
        assertThat(help).contains("'weir COMMAND --help'").contains("Docs: README.md");
    }

    @Test
    void nodeHelpListsStartStopStatusAndTheSavepointDirOption() {
        assertThat(weir("node", "--help")).isZero();

        assertThat(out.toString(StandardCharsets.UTF_8)).contains("--savepoint-dir=DIR").containsPattern("\n  start +Starts")
                .containsPattern("\n  stop +Stops").containsPattern("\n  status +Says");
    }

    @Test
    void anUnknownOptionIsOneLineWithASuggestionAndTheHelpCommandExit2() {
        int rc = weir("node", "--prot", "9000");

        assertThat(rc).isEqualTo(ExitCodes.USAGE);
        assertThat(out.toString(StandardCharsets.UTF_8)).isEmpty();
        assertThat(err.toString(StandardCharsets.UTF_8)).isEqualTo(
                "error: Unknown options: '--prot', '9000' (did you mean --port?); see 'weir node --help'\n");
    }

    @Test
    void anUnknownCommandIsOneLineExit2() {
        int rc = weir("stpo");

        assertThat(rc).isEqualTo(ExitCodes.USAGE);
        assertThat(err.toString(StandardCharsets.UTF_8)).hasLineCount(1).startsWith("error: Unmatched argument at index 0: 'stpo'")
                .endsWith(" (did you mean stop?); see 'weir --help'\n");
    }

    @Test
    void aMissingCommandIsOneLineExit2() {
        assertThat(weir()).isEqualTo(ExitCodes.USAGE);
        assertThat(err.toString(StandardCharsets.UTF_8)).isEqualTo("error: Missing command: run, node, submit, list, info, "
                + "cancel, checkpoint, savepoint, stop, plugins or shell; see 'weir --help'\n");
    }
}
