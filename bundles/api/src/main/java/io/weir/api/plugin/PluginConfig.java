package io.weir.api.plugin;

import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The {@code config} object of one operator in a job file, with typed getters whose errors name
 * the offending field by its path in the job file (e.g. {@code operators[2].config.field}).
 *
 * <p>Every getter ({@link #getString}, {@link #requireString}, {@link #requirePath}, {@link #getLong},
 * {@link #getDouble}, {@link #getBoolean}, {@link #getStringList}, {@link #getObject}, {@link #raw},
 * {@link #has}) records the key it was asked for, present or not: after a factory validated the
 * config, the job parser compares {@link #keys()} with {@link #askedKeys()} and reports a key no
 * getter asked for as "not a setting of plugin type ..." (so a typo such as {@code "pth"} is an
 * error, not silently ignored). A factory must therefore read every setting it supports while
 * validating ({@code outputSchema}/{@code validate}), not only in {@code create}.
 *
 * <p>The values are immutable; the asked-for set only grows and is a concurrent set, so the class
 * is thread-safe.
 */
public final class PluginConfig {
    private final String path;
    private final Map<String, Object> values;
    private final java.nio.file.Path baseDirectory;
    /** Keys any getter was asked for; grows only; concurrent, written by whichever thread reads the config. */
    private final Set<String> asked = ConcurrentHashMap.newKeySet();

    /**
     * @param path where this config sits in the job file, used in error messages
     * @param values the parsed JSON values: String, Number (Long or Double), Boolean, List, Map
     * @param baseDirectory the directory relative paths are resolved against (the job file's directory)
     */
    public PluginConfig(String path, Map<String, Object> values, java.nio.file.Path baseDirectory) {
        this.path = path;
        this.values = java.util.Collections.unmodifiableMap(new java.util.HashMap<>(values));
        this.baseDirectory = baseDirectory;
    }

    /**
     * @return the named string value as a path, resolved against the job file's directory when relative
     * @throws IllegalArgumentException naming the field if it is missing or not a string
     */
    public java.nio.file.Path requirePath(String key) {
        asked.add(key);
        return baseDirectory.resolve(requireString(key)).normalize();
    }

    /** @return the path of this config in the job file */
    public String path() {
        return path;
    }

    /** @return the keys present (unmodifiable); does not count as asking for them */
    public Set<String> keys() {
        return values.keySet();
    }

    /**
     * @return a sorted snapshot of the keys any getter has been asked for so far, present or not:
     *         the settings the plugin reads (once its validation ran)
     */
    public SortedSet<String> askedKeys() {
        return Collections.unmodifiableSortedSet(new TreeSet<>(asked));
    }

    /**
     * @return a sorted snapshot of the keys present that no getter has been asked for so far: after
     *         validation, settings the plugin does not have (typos)
     */
    public SortedSet<String> unaskedKeys() {
        TreeSet<String> unasked = new TreeSet<>(values.keySet());
        unasked.removeAll(asked);
        return Collections.unmodifiableSortedSet(unasked);
    }

    /** @return whether {@code key} is present; records {@code key} as asked for */
    public boolean has(String key) {
        asked.add(key);
        return values.containsKey(key);
    }

    /** @return the raw value, or null; records {@code key} as asked for */
    public Object raw(String key) {
        asked.add(key);
        return values.get(key);
    }

    /** @throws IllegalArgumentException naming the field if it is missing or not a string */
    public String requireString(String key) {
        asked.add(key);
        Object v = values.get(key);
        if (v == null) {
            throw error(key, "is required");
        }
        if (!(v instanceof String s)) {
            throw error(key, "must be a string, got " + v);
        }
        return s;
    }

    /** @return the string value or {@code fallback} if absent */
    public String getString(String key, String fallback) {
        return has(key) ? requireString(key) : fallback;
    }

    /** @throws IllegalArgumentException naming the field if present but not an integral number */
    public long getLong(String key, long fallback) {
        asked.add(key);
        Object v = values.get(key);
        if (v == null) {
            return fallback;
        }
        if (v instanceof Number n && n.doubleValue() == Math.rint(n.doubleValue())) {
            return n.longValue();
        }
        throw error(key, "must be a whole number, got " + v);
    }

    /** @throws IllegalArgumentException naming the field if present but not a number */
    public double getDouble(String key, double fallback) {
        asked.add(key);
        Object v = values.get(key);
        if (v == null) {
            return fallback;
        }
        if (v instanceof Number n) {
            return n.doubleValue();
        }
        throw error(key, "must be a number, got " + v);
    }

    /** @throws IllegalArgumentException naming the field if present but not a boolean */
    public boolean getBoolean(String key, boolean fallback) {
        asked.add(key);
        Object v = values.get(key);
        if (v == null) {
            return fallback;
        }
        if (v instanceof Boolean b) {
            return b;
        }
        throw error(key, "must be true or false, got " + v);
    }

    /** @throws IllegalArgumentException naming the field if present but not a list of strings */
    public List<String> getStringList(String key, List<String> fallback) {
        asked.add(key);
        Object v = values.get(key);
        if (v == null) {
            return fallback;
        }
        if (v instanceof List<?> list && list.stream().allMatch(e -> e instanceof String)) {
            @SuppressWarnings("unchecked")
            List<String> strings = (List<String>) list;
            return List.copyOf(strings);
        }
        throw error(key, "must be a list of strings, got " + v);
    }

    /** @throws IllegalArgumentException naming the field if present but not an object */
    @SuppressWarnings("unchecked")
    public Map<String, Object> getObject(String key) {
        asked.add(key);
        Object v = values.get(key);
        if (v == null) {
            return null;
        }
        if (v instanceof Map<?, ?> m) {
            return (Map<String, Object>) m;
        }
        throw error(key, "must be an object, got " + v);
    }

    /**
     * @param key the field
     * @param problem what is wrong, e.g. "must be positive"
     * @return an exception whose message is {@code <path>.<key> <problem>}
     */
    public IllegalArgumentException error(String key, String problem) {
        return new IllegalArgumentException(path + "." + key + " " + problem);
    }
}
