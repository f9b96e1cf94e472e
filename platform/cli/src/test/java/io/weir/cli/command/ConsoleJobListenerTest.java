package io.weir.cli.command;

import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

import static org.assertj.core.api.Assertions.assertThat;

/** The lines {@code weir run} prints for job events. */
class ConsoleJobListenerTest {

    @Test
    void warningIsOneLineNamingTheJob() {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        ConsoleJobListener listener = new ConsoleJobListener("flight-delays", new PrintStream(bytes, true, StandardCharsets.UTF_8));

        listener.onWarning("flight-delays", "the failure injection did not fire: debug.inject-failure.operator=per-origin ...");

        assertThat(bytes.toString(StandardCharsets.UTF_8)).isEqualTo("Warning: job flight-delays: the failure injection did not fire:"
                + " debug.inject-failure.operator=per-origin ..." + System.lineSeparator());
    }

    @Test
    void aSavepointIsPrintedAsASavepointWithItsPathAndACheckpointAsACheckpoint() {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        ConsoleJobListener listener = new ConsoleJobListener("flight-delays", new PrintStream(bytes, true, StandardCharsets.UTF_8));

        listener.onCompleted(new io.weir.core.coordination.CompletedCheckpointStats(7, 0, 12, 5714, 0, false,
                java.util.Map.of(), false, "/cp/chk-7"));
        listener.onCompleted(new io.weir.core.coordination.CompletedCheckpointStats(8, 0, 30, 5714, 0, false,
                java.util.Map.of(), true, "/sp/savepoint-flight-delays-0a1b2c"));

        assertThat(bytes.toString(StandardCharsets.UTF_8).lines()).containsExactly(
                "Completed checkpoint 7 for job flight-delays (5714 bytes, 12 ms)",
                "Completed savepoint 8 for job flight-delays at /sp/savepoint-flight-delays-0a1b2c (5714 bytes, 30 ms)");
    }
}
