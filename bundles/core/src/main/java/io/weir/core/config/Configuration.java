package io.weir.core.config;

import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;

/**
 * A set of configuration values keyed by {@link ConfigOption#key()}. Values are kept raw and parsed
 * by the option on {@link #get}, so an option reads the same from JSON numbers and from
 * {@code --set key=value} strings. Immutable once built; {@link #with} returns a copy.
 */
public final class Configuration {
    private final Map<String, Object> raw;

    /** @param raw key → JSON value or string */
    public Configuration(Map<String, Object> raw) {
        this.raw = Map.copyOf(raw);
    }

    /** @return an empty configuration (every option at its default) */
    public static Configuration empty() {
        return new Configuration(Map.of());
    }

    /**
     * @return the option's value, or its default when unset
     * @throws IllegalArgumentException naming the key and the bad value if it does not parse
     */
    public <T> T get(ConfigOption<T> option) {
        Object v = raw.get(option.key());
        if (v == null) {
            return option.defaultValue();
        }
        try {
            return option.parser().apply(v);
        } catch (IllegalArgumentException | ArithmeticException e) {
            throw new IllegalArgumentException("configuration '" + option.key() + "': " + e.getMessage(), e);
        }
    }

    /** @return whether the key was set explicitly */
    public boolean contains(ConfigOption<?> option) {
        return raw.containsKey(option.key());
    }

    /** @return a copy with {@code key} set to {@code value} */
    public Configuration with(String key, Object value) {
        Map<String, Object> copy = new HashMap<>(raw);
        copy.put(key, value);
        return new Configuration(copy);
    }

    /** @return a copy with every entry of {@code overrides} applied on top */
    public Configuration withAll(Map<String, ?> overrides) {
        Map<String, Object> copy = new HashMap<>(raw);
        copy.putAll(overrides);
        return new Configuration(copy);
    }

    /** @return the raw values, sorted by key */
    public Map<String, Object> toMap() {
        return new TreeMap<>(raw);
    }

    @Override
    public String toString() {
        return toMap().toString();
    }
}
