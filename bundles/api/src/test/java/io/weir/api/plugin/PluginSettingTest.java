package io.weir.api.plugin;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** {@link PluginSetting}: what it refuses, and the factory methods' shapes. */
class PluginSettingTest {
    @Test
    void requiredHasNoDefaultAndOptionalKeepsItsDefault() {
        assertThat(PluginSetting.required("path", "string", "the file"))
                .isEqualTo(new PluginSetting("path", "string", null, true, "the file"));
        assertThat(PluginSetting.optional("keys", "long", "16", "distinct keys"))
                .isEqualTo(new PluginSetting("keys", "long", "16", false, "distinct keys"));
    }

    @Test
    void aRequiredSettingWithADefaultABlankNameOrAMultiLineDescriptionIsRefused() {
        assertThatThrownBy(() -> new PluginSetting("path", "string", "x", true, "the file"))
                .hasMessage("setting path is required, so it cannot have a default (x)");
        assertThatThrownBy(() -> PluginSetting.optional("path", "string", null, "two\nlines"))
                .hasMessage("description of setting path must be one line");
        assertThatThrownBy(() -> PluginSetting.optional(" ", "string", null, "d")).hasMessage("name must not be blank");
    }
}
