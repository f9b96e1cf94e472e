package io.weir.plugin.file;

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
class FileSourceSettingsDescriptionTest {
    @Test
    void describedSettingsAreTheKeysValidationReads() {
        FileSourceFactory factory = new FileSourceFactory();
        PluginConfig config = new PluginConfig("operators[0].config", Map.of(), Path.of("."));
        catchThrowable(() -> factory.outputSchema(config));

        assertThat(factory.settings()).extracting(PluginSetting::name).containsExactlyInAnyOrderElementsOf(config.askedKeys());
        assertThat(factory.settings()).extracting(PluginSetting::name).containsExactly("path", "schema", "format", "limit", "release-file");
        assertThat(factory.settings()).filteredOn(PluginSetting::required).extracting(PluginSetting::name).containsExactly("path", "schema");
    }
}
