package io.weir.core.config;

import java.util.Objects;
import java.util.function.Function;

/**
 * A typed configuration key with its default and description. Options are declared as constants,
 * one class per concern ({@link CheckpointingOptions}, {@link ExecutionOptions}), and documented in
 * {@code docs/configuration.md}.
 *
 * @param key the dotted key, as written in job files and {@code --set key=value}
 * @param defaultValue the value when unset; null means "unset" (e.g. no checkpoint interval)
 * @param description one sentence for docs and {@code --help}
 * @param parser turns the textual or JSON value into {@code T}; throws IllegalArgumentException on bad input
 * @param <T> the value type
 */
public record ConfigOption<T>(String key, T defaultValue, String description, Function<Object, T> parser) {
    public ConfigOption {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(parser, "parser");
    }

    /** @return a long option (whole numbers) */
    public static ConfigOption<Long> longOption(String key, Long dflt, String description) {
        return new ConfigOption<>(key, dflt, description, ConfigParsers::parseLong);
    }

    /** @return an int option */
    public static ConfigOption<Integer> intOption(String key, Integer dflt, String description) {
        return new ConfigOption<>(key, dflt, description, v -> Math.toIntExact(ConfigParsers.parseLong(v)));
    }

    /** @return a duration option in milliseconds ("500 ms", "2s", "10 min", or a bare number of ms) */
    public static ConfigOption<Long> durationOption(String key, Long dfltMs, String description) {
        return new ConfigOption<>(key, dfltMs, description, ConfigParsers::parseDurationMs);
    }

    /** @return a boolean option */
    public static ConfigOption<Boolean> booleanOption(String key, boolean dflt, String description) {
        return new ConfigOption<>(key, dflt, description, ConfigParsers::parseBoolean);
    }

    /** @return a string option */
    public static ConfigOption<String> stringOption(String key, String dflt, String description) {
        return new ConfigOption<>(key, dflt, description, String::valueOf);
    }

    /** @return an enum option, case-insensitive */
    public static <E extends Enum<E>> ConfigOption<E> enumOption(String key, Class<E> type, E dflt, String description) {
        return new ConfigOption<>(key, dflt, description, v -> ConfigParsers.parseEnum(type, v));
    }
}
