package io.weir.plugin.datagen;

import io.weir.api.plugin.PluginConfig;
import io.weir.api.plugin.PluginSetting;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The settings a factory describes ({@code weir plugins}, {@code GET /plugins}) are exactly the keys its validation
 * reads: validating an empty config asks for every setting before it fails (PluginConfig's contract).
 */
class DatagenSettingsDescriptionTest {
    @Test
    void describedSettingsAreTheKeysValidationReadsWithTheirDefaults() {
        DatagenSourceFactory factory = new DatagenSourceFactory();
        PluginConfig config = new PluginConfig("operators[0].config", Map.of(), Path.of("."));
        DatagenSettings defaults = DatagenSettings.from(config);

        assertThat(factory.settings()).extracting(PluginSetting::name).containsExactlyInAnyOrderElementsOf(config.askedKeys());
        assertThat(factory.settings()).extracting(s -> s.name() + "=" + s.defaultValue())
                .containsExactly("rate=0", "record-size=100", "keys=16", "limit=null");
        assertThat(defaults.recordSize()).isEqualTo(100);
        assertThat(defaults.keys()).isEqualTo(16);
    }
}
