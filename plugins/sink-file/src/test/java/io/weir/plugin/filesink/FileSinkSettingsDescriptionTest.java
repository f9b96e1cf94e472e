package io.weir.plugin.filesink;

import io.weir.api.FieldType;
import io.weir.api.Schema;
import io.weir.api.plugin.PluginConfig;
import io.weir.api.plugin.PluginSetting;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

/**
 * The settings a factory describes ({@code weir plugins}, {@code GET /plugins}) are exactly the keys its validation
 * reads: validating an empty config asks for every setting before it fails (PluginConfig's contract).
 */
class FileSinkSettingsDescriptionTest {
    private static final Schema INPUT = Schema.builder().field("origin", FieldType.STRING).field("delay", FieldType.LONG).build();

    @Test
    void describedSettingsAreTheKeysValidationReads() {
        FileSinkFactory factory = new FileSinkFactory();
        PluginConfig config = new PluginConfig("operators[2].config", Map.of(), Path.of("."));
        catchThrowable(() -> factory.validate(config, INPUT));

        assertThat(factory.settings()).extracting(PluginSetting::name).containsExactlyInAnyOrderElementsOf(config.askedKeys());
        assertThat(factory.settings()).extracting(s -> s.name() + "=" + s.defaultValue() + (s.required() ? " required" : ""))
                .containsExactly("path=null required", "prefix=part");
    }
}
