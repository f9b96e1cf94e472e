package io.weir.api.plugin;

import java.util.Objects;

/**
 * One setting of a plugin type's {@code config} object, as {@code weir plugins} and {@code GET /plugins} show it.
 * A description only: the factory's own validation stays the authority on what it accepts.
 *
 * @param name the key in the job file's {@code config} object, e.g. {@code "record-size"}; not blank
 * @param type the JSON shape it takes, in words, e.g. {@code "long"}, {@code "string"}, {@code "list of strings"},
 *        {@code "object"}; not blank
 * @param defaultValue the value used when the setting is absent, as text (e.g. {@code "100"}); null when it has none
 *        (required, or absent means "off")
 * @param required whether a job without it is rejected; a required setting has no default
 * @param description one line: what it does, with units and ranges; not blank, no line break
 */
public record PluginSetting(String name, String type, String defaultValue, boolean required, String description) {
    /**
     * @throws IllegalArgumentException if a text is blank, the description has a line break, or a required setting
     *         has a default
     */
    public PluginSetting {
        requireText(name, "name");
        requireText(type, "type of setting " + name);
        requireText(description, "description of setting " + name);
        if (description.contains("\n")) {
            throw new IllegalArgumentException("description of setting " + name + " must be one line");
        }
        if (required && defaultValue != null) {
            throw new IllegalArgumentException("setting " + name + " is required, so it cannot have a default ("
                    + defaultValue + ")");
        }
    }

    /** @return a required setting (no default) */
    public static PluginSetting required(String name, String type, String description) {
        return new PluginSetting(name, type, null, true, description);
    }

    /**
     * @param defaultValue the default as text, or null if absence means "off"
     * @return an optional setting
     */
    public static PluginSetting optional(String name, String type, String defaultValue, String description) {
        return new PluginSetting(name, type, defaultValue, false, description);
    }

    private static void requireText(String s, String what) {
        if (Objects.requireNonNull(s, what).isBlank()) {
            throw new IllegalArgumentException(what + " must not be blank");
        }
    }
}
