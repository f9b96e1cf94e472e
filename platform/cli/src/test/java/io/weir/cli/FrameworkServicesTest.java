package io.weir.cli;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** The diagnosis quotes a failed component's exception line, not the stack trace DS records. */
class FrameworkServicesTest {

    @Test
    void failureIsReducedToItsFirstLine() {
        String trace = "java.lang.IllegalArgumentException: file:/w/conf/engine/io.weir.engine.cfg: state.async-snapshot.threads=0"
                + " must be >= 1, got 0\n\tat io.weir.core.config.EngineOptions.checked(EngineOptions.java:64)\n";
        assertThat(FrameworkServices.firstLine(trace)).isEqualTo("java.lang.IllegalArgumentException: file:/w/conf/engine/"
                + "io.weir.engine.cfg: state.async-snapshot.threads=0 must be >= 1, got 0");
        assertThat(FrameworkServices.firstLine("one line")).isEqualTo("one line");
        assertThat(FrameworkServices.firstLine(null)).isEqualTo("null");
    }
}
