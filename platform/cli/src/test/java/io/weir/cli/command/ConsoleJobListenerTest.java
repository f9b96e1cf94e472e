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
}
