package io.weir.core.config;

import java.util.Objects;
import java.util.function.Function;

/**
 * A typed configuration key with its default, description and optional lower bound. Options are
 * declared as constants, one class per concern ({@link CheckpointingOptions}, {@link ExecutionOptions}),
 * and documented in {@code docs/configuration.md}. The job parser ({@code JobSpecParser}) parses and
 * {@linkplain #check checks} every option a job sets, so an out-of-range value is rejected before
 * anything starts.
 *
 * @param key the dotted key, as written in job files and {@code --set key=value}
 * @param defaultValue the value when unset; null means "unset" (e.g. no checkpoint interval)
 * @param description one sentence for docs and {@code --help}
 * @param parser turns the textual or JSON value into {@code T}; throws IllegalArgumentException on bad input
 * @param min the lower bound of a numeric option, or null for none
 * @param <T> the value type
 */
public record ConfigOption<T>(String key, T defaultValue, String description, Function<Object, T> parser, Min min) {
    /** @throws NullPointerException if key or parser is null */
    public ConfigOption {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(parser, "parser");
    }

    /** An option without a lower bound. */
    public ConfigOption(String key, T defaultValue, String description, Function<Object, T> parser) {
        this(key, defaultValue, description, parser, null);
    }

    /**
     * The lower bound of a numeric option.
     *
     * @param value the bound
     * @param exclusive true for {@code > value}, false for {@code >= value}
     * @param unit appended to numbers in messages ({@code "ms"}, {@code "bytes"}), or empty
     */
    public record Min(long value, boolean exclusive, String unit) {
        /** @throws NullPointerException if unit is null (use "") */
        public Min {
            Objects.requireNonNull(unit, "unit");
        }

        /** @return whether {@code v} satisfies this bound */
        public boolean admits(long v) {
            return exclusive ? v > value : v >= value;
        }

        /** @return e.g. {@code "> 0 ms"} or {@code ">= 1"} */
        @Override
        public String toString() {
            return (exclusive ? "> " : ">= ") + value + (unit.isEmpty() ? "" : " " + unit);
        }
    }

    /**
     * Checks a parsed value against {@link #min}; null (unset) and options without a bound pass.
     *
     * @throws IllegalArgumentException {@code "must be > 0 ms, got 0"} (without the key: the caller
     *         says where the value came from)
     */
    public void check(T value) {
        if (min == null || !(value instanceof Number n)) {
            return;
        }
        if (!min.admits(n.longValue())) {
            throw new IllegalArgumentException("must be " + min + ", got " + n);
        }
    }

    /** @return a copy of this option with lower bound {@code >= value} ({@code unit} for messages, may be "") */
    public ConfigOption<T> atLeast(long value, String unit) {
        return new ConfigOption<>(key, defaultValue, description, parser, new Min(value, false, unit));
    }

    /** @return a copy of this option with lower bound {@code > value} ({@code unit} for messages, may be "") */
    public ConfigOption<T> greaterThan(long value, String unit) {
        return new ConfigOption<>(key, defaultValue, description, parser, new Min(value, true, unit));
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
