package io.weir.cli.command;

import jakarta.json.spi.JsonProvider;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class RequestParsingTest {
    @Test
    void runRequestFromTheLauncherMap() {
        CommandRequest r = CommandRequest.fromMap(Map.of("command", "run", "job", "/tmp/j.json", "overrides", Map.of("a", "1")));

        assertThat(r.command()).isEqualTo(CommandRequest.Command.RUN);
        assertThat(r.jobFile()).isEqualTo(Path.of("/tmp/j.json"));
        assertThat(r.overrides()).containsExactly(Map.entry("a", "1"));
    }

    @Test
    void unknownCommandIsRejectedNamingIt() {
        assertThatThrownBy(() -> CommandRequest.fromMap(Map.of("command", "savepoint")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("\"savepoint\"");
    }

    @Test
    void runWithoutJobIsRejected() {
        assertThatThrownBy(() -> CommandRequest.fromMap(Map.of("command", "run")))
                .hasMessageContaining("request.job");
    }

    @Test
    void gogoOverridesNeedKeyEqualsValue() {
        assertThat(Overrides.parse(List.of("a=1", "b=x=y"))).containsExactly(Map.entry("a", "1"), Map.entry("b", "x=y"));
        assertThatThrownBy(() -> Overrides.parse(List.of("a"))).hasMessageContaining("'a' is not key=value");
    }

    @Test
    void jobTypesAreReadLenientlyFromTheJobText() {
        JsonProvider json = JsonProvider.provider();

        assertThat(JobTypes.named("{\"operators\": [{\"type\": \"b\"}, {\"type\": \"a\"}, {\"id\": 1}, 3]}", json))
                .containsExactly("a", "b");
        assertThat(JobTypes.named("not json", json)).isEmpty();
        assertThat(JobTypes.named("[]", json)).isEmpty();
    }
}
