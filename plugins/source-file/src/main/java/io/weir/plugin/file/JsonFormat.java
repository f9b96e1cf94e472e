package io.weir.plugin.file;

import java.util.Locale;

/**
 * How the records of a JSON input file are laid out (config key {@code format}).
 */
public enum JsonFormat {
    /** Decide from the first non-blank character: {@code [} means {@link #ARRAY}, <code>{</code> means {@link #LINES}. */
    AUTO,
    /** One JSON array of objects: {@code [{...},{...}]}. */
    ARRAY,
    /** JSON lines: one object per line (any whitespace between objects is accepted). */
    LINES;

    /**
     * @param name {@code "auto"}, {@code "array"} or {@code "lines"}, case-insensitive
     * @return the format
     * @throws IllegalArgumentException listing the valid names if {@code name} is none of them
     */
    public static JsonFormat parse(String name) {
        for (JsonFormat f : values()) {
            if (f.name().equalsIgnoreCase(name)) {
                return f;
            }
        }
        throw new IllegalArgumentException("must be one of auto, array, lines; got '" + name + "'");
    }

    @Override
    public String toString() {
        return name().toLowerCase(Locale.ROOT);
    }
}
